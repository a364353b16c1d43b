import { useState } from 'preact/hooks';
import {
  type CatalogueChange,
  type CatalogueView,
  catalogueChanges,
  getCatalogue,
  type OperatorModel,
  setExchangeRate,
  setMarkup,
  updateModel,
} from '../../api/catalogue.ts';
import { AsyncView, ErrorMessage, Field, Modal, PageHeader, useAsync } from '../../components/ui.tsx';
import { useI18n } from '../../i18n/i18n.tsx';

/** The operator's "Models and prices": search, enable/disable, prices, rate, markup, history. */
export function CataloguePage() {
  const { t } = useI18n();
  const catalogue = useAsync((signal) => getCatalogue(signal), []);
  const [historyVersion, setHistoryVersion] = useState(0);
  const changed = () => {
    catalogue.reload();
    setHistoryVersion((n) => n + 1);
  };
  return (
    <section>
      <PageHeader title={t('catalogue.title')}>
        <button type="button" class="button" onClick={catalogue.reload}>
          {t('common.refresh')}
        </button>
      </PageHeader>
      <AsyncView state={catalogue}>{(data) => <CatalogueBody data={data} onChanged={changed} />}</AsyncView>
      <History key={historyVersion} />
    </section>
  );
}

function CatalogueBody({ data, onChanged }: { data: CatalogueView; onChanged: () => void }) {
  const { t, format } = useI18n();
  const [query, setQuery] = useState('');
  const [editing, setEditing] = useState<OperatorModel>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<string>();
  const needle = query.trim().toLowerCase();
  const models = data.data.filter(
    (model) =>
      needle === '' || model.id.toLowerCase().includes(needle) || model.name.toLowerCase().includes(needle),
  );
  const toggle = async (model: OperatorModel) => {
    setBusy(model.id);
    setError(undefined);
    try {
      await updateModel(model.id, { enabled: !model.enabled });
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <>
      {data.unavailable_defaults.length > 0 ? (
        <div class="card notice notice-warning" role="alert" data-testid="unavailable-defaults">
          <p>{t('catalogue.defaults_unavailable')}</p>
          <ul>
            {data.unavailable_defaults.map((item) => (
              <li key={item.variable}>
                <code dir="ltr">{item.variable}</code> = <code dir="ltr">{item.model}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="stats">
        <RateEditor data={data} onChanged={onChanged} />
        <MarkupEditor data={data} onChanged={onChanged} />
      </div>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <div class="card">
        <Field label={t('catalogue.search')}>
          {(id) => (
            <input
              id={id}
              type="search"
              dir="ltr"
              value={query}
              data-testid="catalogue-search"
              onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        <div class="table-wrap">
          <table class="stacked-table" data-testid="catalogue-table">
            <thead>
              <tr>
                <th scope="col">{t('catalogue.model')}</th>
                <th scope="col">{t('catalogue.state')}</th>
                <th scope="col" class="num">
                  {t('catalogue.effective_price')}
                </th>
                <th scope="col">
                  <span class="visually-hidden">{t('queues.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {models.map((model) => (
                <tr key={model.id}>
                  <th scope="row">
                    <code dir="ltr">{model.id}</code>
                    <div class="muted">
                      {model.type} · {t('catalogue.per_unit', { unit: model.pricing.unit })}
                    </div>
                  </th>
                  <td>
                    <span class={model.enabled ? 'badge badge-active' : 'badge badge-inactive'}>
                      {model.enabled ? t('catalogue.enabled') : t('catalogue.disabled')}
                    </span>
                    {model.enabled && !model.served ? (
                      <div class="muted">{t('catalogue.no_provider')}</div>
                    ) : null}
                    {model.price_override ? <div class="muted">{t('catalogue.overridden')}</div> : null}
                  </td>
                  <td class="num">
                    {format.money(model.pricing.input)}
                    {model.pricing.output != null ? (
                      <div class="muted">{format.money(model.pricing.output)}</div>
                    ) : null}
                  </td>
                  <td>
                    <div class="actions actions-start">
                      <button
                        type="button"
                        class="button button-small"
                        disabled={busy === model.id}
                        onClick={() => toggle(model)}
                      >
                        {model.enabled ? t('catalogue.disable') : t('catalogue.enable')}
                      </button>
                      <button type="button" class="button button-small" onClick={() => setEditing(model)}>
                        {t('catalogue.edit_price')}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      {editing ? (
        <PriceDialog
          model={editing}
          data={data}
          onClose={() => setEditing(undefined)}
          onDone={() => {
            setEditing(undefined);
            onChanged();
          }}
        />
      ) : null}
    </>
  );
}

function RateEditor({ data, onChanged }: { data: CatalogueView; onChanged: () => void }) {
  const { t, format } = useI18n();
  const [value, setValue] = useState(String(data.irt_per_usd));
  const [error, setError] = useState<unknown>();
  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await setExchangeRate(Number(value));
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stat" onSubmit={save} data-testid="rate-editor">
      <span class="stat-label">{t('catalogue.rate')}</span>
      <span class="stat-value">{format.money(data.irt_per_usd)}</span>
      <span class="stat-note">{t('catalogue.as_of', { date: format.dateTime(data.as_of) })}</span>
      <Field label={t('catalogue.new_rate')}>
        {(id) => (
          <input
            id={id}
            dir="ltr"
            inputMode="decimal"
            value={value}
            onInput={(event) => setValue((event.target as HTMLInputElement).value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <button type="submit" class="button button-small">
        {t('common.save')}
      </button>
    </form>
  );
}

function MarkupEditor({ data, onChanged }: { data: CatalogueView; onChanged: () => void }) {
  const { t, format } = useI18n();
  const [value, setValue] = useState(String(data.markup_percent));
  const [error, setError] = useState<unknown>();
  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await setMarkup(Number(value));
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stat" onSubmit={save} data-testid="markup-editor">
      <span class="stat-label">{t('catalogue.markup')}</span>
      <span class="stat-value">{format.percent(data.markup_percent / 100)}</span>
      <span class="stat-note">{t('catalogue.markup_note')}</span>
      <Field label={t('catalogue.new_markup')}>
        {(id) => (
          <input
            id={id}
            dir="ltr"
            inputMode="decimal"
            value={value}
            onInput={(event) => setValue((event.target as HTMLInputElement).value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <button type="submit" class="button button-small">
        {t('common.save')}
      </button>
    </form>
  );
}

function PriceDialog(props: {
  model: OperatorModel;
  data: CatalogueView;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t, format } = useI18n();
  const { model, data } = props;
  const start = model.price_override ?? model.pricing;
  const [input, setInput] = useState(String(start.input));
  const [output, setOutput] = useState(start.output == null ? '' : String(start.output));
  const [cached, setCached] = useState(start.cached_input == null ? '' : String(start.cached_input));
  const [error, setError] = useState<unknown>();
  const usd = model.list_price_usd;
  const save = async (
    price: { input: number; output: number | null; cached_input: number | null } | null,
  ) => {
    setError(undefined);
    try {
      await updateModel(model.id, { price_override: price });
      props.onDone();
    } catch (err) {
      setError(err);
    }
  };
  const number = (text: string) => (text.trim() === '' ? null : Number(text));
  return (
    <Modal open title={t('catalogue.edit_price_of', { model: model.id })} onClose={props.onClose}>
      <dl class="price-facts" data-testid="price-facts">
        <dt>{t('catalogue.list_price')}</dt>
        <dd dir="ltr">
          ${usd.input}
          {usd.output != null ? ` / $${usd.output}` : ''} ({usd.unit})
        </dd>
        <dt>{t('catalogue.rate')}</dt>
        <dd>{format.money(data.irt_per_usd)}</dd>
        <dt>{t('catalogue.markup')}</dt>
        <dd>{format.percent(data.markup_percent / 100)}</dd>
        <dt>{t('catalogue.effective_price')}</dt>
        <dd>
          {format.money(model.pricing.input)}
          {model.pricing.output != null ? ` / ${format.money(model.pricing.output)}` : ''}
        </dd>
      </dl>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save({ input: Number(input), output: number(output), cached_input: number(cached) });
        }}
      >
        <Field label={t('catalogue.price_input')}>
          {(id) => (
            <input
              id={id}
              dir="ltr"
              inputMode="decimal"
              value={input}
              onInput={(e) => setInput((e.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        <Field label={t('catalogue.price_output')}>
          {(id) => (
            <input
              id={id}
              dir="ltr"
              inputMode="decimal"
              value={output}
              onInput={(e) => setOutput((e.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        <Field label={t('catalogue.price_cached')}>
          {(id) => (
            <input
              id={id}
              dir="ltr"
              inputMode="decimal"
              value={cached}
              onInput={(e) => setCached((e.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        {error !== undefined ? <ErrorMessage error={error} /> : null}
        <div class="actions">
          {model.price_override ? (
            <button type="button" class="button" onClick={() => save(null)}>
              {t('catalogue.back_to_list')}
            </button>
          ) : null}
          <button type="button" class="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" class="button button-primary">
            {t('common.save')}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function History() {
  const { t, format } = useI18n();
  const [cursor, setCursor] = useState<string>();
  const page = useAsync((signal) => catalogueChanges(cursor, signal), [cursor]);
  const show = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value));
  return (
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">{t('catalogue.history')}</h2>
      <AsyncView state={page} empty={(data) => data.data.length === 0} emptyText={t('catalogue.no_history')}>
        {(data) => (
          <>
            <div class="table-wrap">
              <table data-testid="catalogue-history">
                <thead>
                  <tr>
                    <th scope="col">{t('catalogue.when')}</th>
                    <th scope="col">{t('catalogue.who')}</th>
                    <th scope="col">{t('catalogue.what')}</th>
                    <th scope="col">{t('catalogue.change')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((change: CatalogueChange) => (
                    <tr key={change.id}>
                      <td>{format.dateTime(change.created * 1000)}</td>
                      <td>
                        {change.actor === 'operator'
                          ? t('catalogue.actor_operator')
                          : t('catalogue.actor_api')}
                      </td>
                      <td>
                        <code dir="ltr">{change.subject}</code> <code dir="ltr">{change.field}</code>
                      </td>
                      <td dir="ltr">
                        {show(change.before)} → {show(change.after)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {data.next_cursor ? (
              <button type="button" class="button" onClick={() => setCursor(data.next_cursor ?? undefined)}>
                {t('catalogue.older')}
              </button>
            ) : null}
          </>
        )}
      </AsyncView>
    </section>
  );
}
