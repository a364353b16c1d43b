import { useMemo, useState } from 'preact/hooks';
import { getUsage, listModels, type UsageQuery, usageCsv } from '../api/endpoints.ts';
import type { UsageReport, UsageRow } from '../api/types.ts';
import { billingToday } from '../billing-calendar.ts';
import { dayRange } from '../components/cost-chart.tsx';
import { AsyncView, ErrorMessage, Field, PageHeader, Pager, saveBlob, useAsync } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';

const ROWS_PER_PAGE = 100;
const QUICK_RANGES = [7, 30, 90, 365] as const;

export function UsagePage() {
  const { t } = useI18n();
  return (
    <section>
      <PageHeader title={t('usage.title')} />
      <UsageView load={getUsage} csv={(query) => usageCsv(query)} />
    </section>
  );
}

/** The API lists rows by date then model; the table shows the newest day first. */
function newestFirst(rows: readonly UsageRow[]): UsageRow[] {
  return [...rows].sort((a, b) =>
    a.date === b.date ? a.model.localeCompare(b.model) : a.date < b.date ? 1 : -1,
  );
}

/** The `days` billing days ending today in the billing zone (not the browser's). */
function rangeOf(days: number): { from: string; to: string } {
  const to = billingToday();
  return { from: dayRange(to, days)[0] ?? to, to };
}

/** Day × model rows with filters, totals and CSV export (the holder's own, or an account's for operators). */
export function UsageView(props: {
  load: (query: UsageQuery, signal: AbortSignal) => Promise<UsageReport>;
  csv: (query: UsageQuery) => Promise<Blob>;
}) {
  const { t, format } = useI18n();
  const [range, setRange] = useState(() => rangeOf(30));
  const [model, setModel] = useState('');
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>();
  const query: UsageQuery = { from: range.from, to: range.to, model: model || undefined };
  const usage = useAsync(
    (signal) => {
      setPage(1);
      return props.load(query, signal);
    },
    [range.from, range.to, model],
  );
  const models = useAsync((signal) => listModels(signal), []);
  const modelIds = useMemo(() => (models.data ?? []).map((m) => m.id).sort(), [models.data]);

  const exportCsv = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      saveBlob(await props.csv(query), `usage-${range.from}-${range.to}.csv`);
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <form class="filters card" onSubmit={(e) => e.preventDefault()} aria-label={t('usage.filters')}>
        <fieldset class="quick-ranges">
          <legend class="visually-hidden">{t('usage.quick_range')}</legend>
          {QUICK_RANGES.map((days) => (
            <button
              key={days}
              type="button"
              class="button button-small"
              aria-pressed={range.from === rangeOf(days).from && range.to === rangeOf(days).to}
              onClick={() => setRange(rangeOf(days))}
            >
              {t('usage.last_days', { n: format.number(days) })}
            </button>
          ))}
        </fieldset>
        <div class="filter-fields">
          <Field label={t('usage.from')} hint={format.day(range.from)}>
            {(id, describedBy) => (
              <input
                id={id}
                type="date"
                dir="ltr"
                max={range.to}
                aria-describedby={describedBy}
                value={range.from}
                onChange={(e) => e.currentTarget.value && setRange({ ...range, from: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field label={t('usage.to')} hint={format.day(range.to)}>
            {(id, describedBy) => (
              <input
                id={id}
                type="date"
                dir="ltr"
                min={range.from}
                aria-describedby={describedBy}
                value={range.to}
                onChange={(e) => e.currentTarget.value && setRange({ ...range, to: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field label={t('usage.model')}>
            {(id) => (
              <select id={id} value={model} onChange={(e) => setModel(e.currentTarget.value)}>
                <option value="">{t('usage.all_models')}</option>
                {modelIds.map((modelId) => (
                  <option key={modelId} value={modelId}>
                    {modelId}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="field field-action">
            <button type="button" class="button" onClick={exportCsv} disabled={exporting}>
              {exporting ? t('common.working') : t('usage.export_csv')}
            </button>
          </div>
        </div>
        {exportError !== undefined ? <ErrorMessage error={exportError} /> : null}
      </form>

      <AsyncView state={usage} empty={(data) => data.data.length === 0} emptyText={t('usage.empty')}>
        {(data) => {
          const pages = Math.max(1, Math.ceil(data.data.length / ROWS_PER_PAGE));
          const rows = newestFirst(data.data).slice((page - 1) * ROWS_PER_PAGE, page * ROWS_PER_PAGE);
          return (
            <div class="card">
              <div class="stats stats-inline" data-testid="usage-totals">
                <div class="stat">
                  <span class="stat-label">{t('usage.requests')}</span>
                  <span class="stat-value">{format.number(data.totals.requests)}</span>
                </div>
                <div class="stat">
                  <span class="stat-label">{t('usage.input_tokens')}</span>
                  <span class="stat-value">{format.number(data.totals.input_tokens)}</span>
                </div>
                <div class="stat">
                  <span class="stat-label">{t('usage.output_tokens')}</span>
                  <span class="stat-value">{format.number(data.totals.output_tokens)}</span>
                </div>
                <div class="stat">
                  <span class="stat-label">{t('usage.cost')}</span>
                  <span class="stat-value">{format.money(data.totals.cost)}</span>
                </div>
              </div>
              <div class="table-wrap">
                <table data-testid="usage-table">
                  <caption class="visually-hidden">{t('usage.table_caption')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('common.day')}</th>
                      <th scope="col">{t('usage.model')}</th>
                      <th scope="col" class="num">
                        {t('usage.requests')}
                      </th>
                      <th scope="col" class="num">
                        {t('usage.input_tokens')}
                      </th>
                      <th scope="col" class="num">
                        {t('usage.output_tokens')}
                      </th>
                      <th scope="col" class="num">
                        {t('common.cost_toman')}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((row) => (
                      <tr key={`${row.date}/${row.model}`}>
                        <td class="nowrap">{format.day(row.date)}</td>
                        <td>
                          <code dir="ltr">{row.model}</code>
                        </td>
                        <td class="num">{format.number(row.requests)}</td>
                        <td class="num">{format.number(row.input_tokens)}</td>
                        <td class="num">{format.number(row.output_tokens)}</td>
                        <td class="num">{format.amount(row.cost)}</td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row" colSpan={2}>
                        {t('usage.total')}
                      </th>
                      <td class="num">{format.number(data.totals.requests)}</td>
                      <td class="num">{format.number(data.totals.input_tokens)}</td>
                      <td class="num">{format.number(data.totals.output_tokens)}</td>
                      <td class="num">{format.amount(data.totals.cost)}</td>
                    </tr>
                  </tfoot>
                </table>
              </div>
              {pages > 1 ? (
                <Pager
                  page={page}
                  hasNewer={page > 1}
                  hasOlder={page < pages}
                  onNewer={() => setPage(page - 1)}
                  onOlder={() => setPage(page + 1)}
                  newerLabel={t('common.previous')}
                  olderLabel={t('common.next')}
                />
              ) : null}
            </div>
          );
        }}
      </AsyncView>
    </>
  );
}
