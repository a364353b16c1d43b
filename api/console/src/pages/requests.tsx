import { useState } from 'preact/hooks';
import { getRequest, listKeys, listRequests, type RequestQuery, requestsCsv } from '../api/endpoints.ts';
import type { RequestRecord } from '../api/types.ts';
import {
  AsyncView,
  ErrorMessage,
  Field,
  maskedKey,
  PageHeader,
  Pager,
  StatusBadge,
  saveBlob,
  useAsync,
  useCursorPages,
} from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';

const PAGE_SIZE = 50;

/** The holder's own requests. */
export function RequestsPage() {
  const { t } = useI18n();
  return (
    <section>
      <PageHeader title={t('requests.title')} />
      <RequestsView operator={false} />
    </section>
  );
}

/** Every account's requests (the operator), with an account filter. */
export function OperatorRequestsPage() {
  const { t } = useI18n();
  return (
    <section>
      <PageHeader title={t('requests.title_all')} />
      <RequestsView operator />
    </section>
  );
}

const OUTCOME_KEY: Record<RequestRecord['outcome'], MessageKey> = {
  completed: 'requests.outcome_completed',
  failed: 'requests.outcome_failed',
  client_gone: 'requests.outcome_client_gone',
};

/** Unix seconds of a `YYYY-MM-DD` day's start (UTC), and of its end for `to`. */
const dayStart = (day: string) => String(Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000));
const dayEnd = (day: string) => String(Math.floor(Date.parse(`${day}T23:59:59Z`) / 1000));

function RequestsView({ operator }: { operator: boolean }) {
  const { t, format } = useI18n();
  const [filters, setFilters] = useState({ account: '', key: '', model: '', status: '', from: '', to: '' });
  const [search, setSearch] = useState('');
  const [shown, setShown] = useState<string | undefined>();
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>();
  const pages = useCursorPages();
  const query: RequestQuery = {
    account_id: operator ? filters.account.trim() : undefined,
    key_id: filters.key,
    model: filters.model.trim(),
    status: filters.status.trim(),
    from: filters.from ? dayStart(filters.from) : undefined,
    to: filters.to ? dayEnd(filters.to) : undefined,
  };
  const list = useAsync(
    (signal) => listRequests(operator, { ...query, limit: PAGE_SIZE, cursor: pages.cursor }, signal),
    [JSON.stringify(query), pages.cursor],
  );
  const keys = useAsync((signal) => (operator ? Promise.resolve([]) : listKeys(signal)), [operator]);
  const detail = useAsync(
    (signal) => (shown === undefined ? Promise.resolve(undefined) : getRequest(operator, shown, signal)),
    [shown],
  );
  const change = (name: keyof typeof filters) => (e: { currentTarget: { value: string } }) => {
    pages.reset();
    setFilters({ ...filters, [name]: e.currentTarget.value });
  };
  const exportCsv = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      saveBlob(await requestsCsv(operator, query), 'requests.csv');
    } catch (err) {
      setExportError(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <>
      <form
        class="card search-by-id"
        aria-label={t('requests.search')}
        onSubmit={(e) => {
          e.preventDefault();
          if (search.trim() !== '') setShown(search.trim());
        }}
      >
        <Field label={t('requests.search')} hint={t('requests.search_hint')}>
          {(id, describedBy) => (
            <input
              id={id}
              dir="ltr"
              type="search"
              data-testid="request-search"
              aria-describedby={describedBy}
              placeholder="req_…"
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          )}
        </Field>
        <div class="field field-action">
          <button type="submit" class="button">
            {t('requests.find')}
          </button>
        </div>
      </form>

      {shown !== undefined ? (
        <div class="card request-detail" data-testid="request-detail">
          <div class="page-header">
            <h2>{t('requests.detail')}</h2>
            <button type="button" class="button button-small" onClick={() => setShown(undefined)}>
              {t('common.close')}
            </button>
          </div>
          <AsyncView state={detail}>
            {(record) => (record ? <RecordDetail record={record} /> : null)}
          </AsyncView>
        </div>
      ) : null}

      <form class="filters card" onSubmit={(e) => e.preventDefault()} aria-label={t('requests.filters')}>
        <div class="filter-fields">
          {operator ? (
            <Field label={t('requests.account')}>
              {(id) => (
                <input
                  id={id}
                  dir="ltr"
                  data-testid="filter-account"
                  value={filters.account}
                  onChange={change('account')}
                />
              )}
            </Field>
          ) : (
            <Field label={t('requests.key')}>
              {(id) => (
                <select id={id} value={filters.key} onChange={change('key')}>
                  <option value="">{t('requests.all_keys')}</option>
                  {(keys.data ?? []).map((key) => (
                    <option key={key.id} value={key.id}>
                      {key.name || maskedKey(key.last4)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field label={t('requests.model')}>
            {(id) => (
              <input
                id={id}
                dir="ltr"
                placeholder="openai/gpt-4o"
                value={filters.model}
                onChange={change('model')}
              />
            )}
          </Field>
          <Field label={t('requests.status')}>
            {(id) => (
              <select id={id} data-testid="filter-status" value={filters.status} onChange={change('status')}>
                <option value="">{t('requests.status_any')}</option>
                <option value="ok">{t('requests.status_ok')}</option>
                <option value="error">{t('requests.status_error')}</option>
                <option value="429">429</option>
                <option value="402">402</option>
                <option value="502">502</option>
              </select>
            )}
          </Field>
          <Field label={t('requests.from')}>
            {(id) => (
              <input
                id={id}
                type="date"
                dir="ltr"
                max={filters.to || undefined}
                value={filters.from}
                onChange={change('from')}
              />
            )}
          </Field>
          <Field label={t('requests.to')}>
            {(id) => (
              <input
                id={id}
                type="date"
                dir="ltr"
                min={filters.from || undefined}
                value={filters.to}
                onChange={change('to')}
              />
            )}
          </Field>
          <div class="field field-action">
            <button
              type="button"
              class="button"
              onClick={exportCsv}
              disabled={exporting}
              data-testid="export-csv"
            >
              {exporting ? t('common.working') : t('requests.export_csv')}
            </button>
          </div>
        </div>
        {exportError !== undefined ? <ErrorMessage error={exportError} /> : null}
      </form>

      <AsyncView state={list} empty={(page) => page.data.length === 0} emptyText={t('requests.empty')}>
        {(page) => (
          <div class="card">
            <div class="table-wrap">
              <table class="stacked-table" data-testid="requests-table">
                <caption class="visually-hidden">{t('requests.table_caption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('requests.time')}</th>
                    <th scope="col">{t('requests.id')}</th>
                    {operator ? <th scope="col">{t('requests.account')}</th> : null}
                    <th scope="col">{t('requests.endpoint')}</th>
                    <th scope="col">{t('requests.model')}</th>
                    <th scope="col" class="num">
                      {t('requests.status')}
                    </th>
                    <th scope="col">{t('requests.outcome')}</th>
                    <th scope="col" class="num">
                      {t('common.cost_toman')}
                    </th>
                    <th scope="col" class="num">
                      {t('requests.latency')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((record) => (
                    <tr key={record.id}>
                      <td class="nowrap" data-label={t('requests.time')}>
                        {format.dateTime(record.created * 1000)}
                      </td>
                      <td data-label={t('requests.id')}>
                        <button
                          type="button"
                          class="link-button"
                          dir="ltr"
                          onClick={() => setShown(record.id)}
                        >
                          <code>{shortId(record.id)}</code>
                        </button>
                      </td>
                      {operator ? (
                        <td data-label={t('requests.account')}>
                          <code dir="ltr">{record.account_id}</code>
                        </td>
                      ) : null}
                      <td data-label={t('requests.endpoint')}>
                        <code dir="ltr">{record.endpoint}</code>
                      </td>
                      <td data-label={t('requests.model')}>
                        {record.model === null ? '—' : <code dir="ltr">{record.model}</code>}
                      </td>
                      <td class="num" data-label={t('requests.status')}>
                        {format.number(record.status)}
                      </td>
                      <td data-label={t('requests.outcome')}>
                        <StatusBadge status={badgeOf(record)} label={t(OUTCOME_KEY[record.outcome])} />
                      </td>
                      <td class="num" data-label={t('common.cost_toman')}>
                        {format.amount(record.cost)}
                      </td>
                      <td class="num nowrap" data-label={t('requests.latency')}>
                        {t('requests.ms', { n: format.number(record.latency_ms) })}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              page={pages.page}
              hasNewer={pages.page > 1}
              hasOlder={page.next_cursor !== null}
              onNewer={pages.newer}
              onOlder={() => page.next_cursor !== null && pages.older(page.next_cursor)}
            />
          </div>
        )}
      </AsyncView>
    </>
  );
}

function badgeOf(record: RequestRecord): string {
  if (record.outcome === 'completed' && record.status < 400) return 'completed';
  return record.outcome === 'client_gone' ? 'expired' : 'failed';
}

/** The id's random end, enough to tell rows apart (the full id is in the detail view). */
function shortId(id: string): string {
  return id.length > 16 ? `…${id.slice(-10)}` : id;
}

function RecordDetail({ record }: { record: RequestRecord }) {
  const { t, format } = useI18n();
  const ltr = (value: string | number | null) => (value === null ? '—' : <code dir="ltr">{value}</code>);
  const rows: Array<[MessageKey, preact.ComponentChild]> = [
    ['requests.id', ltr(record.id)],
    ['requests.time', format.dateTime(record.created * 1000)],
    ['requests.account', ltr(record.account_id)],
    ['requests.key', ltr(`${record.key_id} (${maskedKey(record.key_last4)})`)],
    ['requests.path', ltr(`${record.method} ${record.path}`)],
    ['requests.endpoint', ltr(record.endpoint)],
    ['requests.model', ltr(record.model)],
    ['requests.provider', ltr(record.provider)],
    ['requests.channel', ltr(record.channel_id)],
    ['requests.attempts', format.number(record.attempts)],
    ['requests.status', format.number(record.status)],
    ['requests.error_code', ltr(record.error_code)],
    ['requests.outcome', t(OUTCOME_KEY[record.outcome])],
    ['requests.stream', record.stream ? t('common.on') : t('common.off')],
    [
      'requests.tokens',
      t('requests.tokens_value', {
        input: format.number(record.input_tokens),
        output: format.number(record.output_tokens),
        cached: format.number(record.cached_tokens),
        reasoning: format.number(record.reasoning_tokens),
      }),
    ],
    ['requests.cost', format.money(record.cost)],
    ['requests.latency', t('requests.ms', { n: format.number(record.latency_ms) })],
    ['requests.ttft', record.ttft_ms === null ? '—' : t('requests.ms', { n: format.number(record.ttft_ms) })],
    ['requests.ip', ltr(record.ip)],
  ];
  return (
    <dl class="detail-list" data-testid="request-fields">
      {rows.map(([label, value]) => (
        <div key={label} class="detail-row">
          <dt>{t(label)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
