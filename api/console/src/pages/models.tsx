import { useMemo, useState } from 'preact/hooks';
import { listModels } from '../api/endpoints.ts';
import type { Model, ModelType, Pricing } from '../api/types.ts';
import { AsyncView, Empty, Field, PageHeader, useAsync } from '../components/ui.tsx';
import { type I18n, type MessageKey, useI18n } from '../i18n/i18n.tsx';

export const MODEL_TYPES: readonly ModelType[] = [
  'chat',
  'embedding',
  'image',
  'tts',
  'stt',
  'video',
  'sound',
];

export const TYPE_LABEL: Record<ModelType, MessageKey> = {
  chat: 'models.type_chat',
  embedding: 'models.type_embedding',
  image: 'models.type_image',
  tts: 'models.type_tts',
  stt: 'models.type_stt',
  video: 'models.type_video',
  sound: 'models.type_sound',
};

const UNIT_LABEL: Record<string, MessageKey> = {
  '1M_tokens': 'models.unit_1m_tokens',
  '1K_chars': 'models.unit_1k_chars',
  minute: 'models.unit_minute',
  second: 'models.unit_second',
  image: 'models.unit_image',
};

/** The prices of a model in Toman, per its unit. */
export function priceText(i18n: I18n, model: Model): string {
  const { t, format } = i18n;
  const pricing = model.pricing;
  if (!pricing) return '—';
  const unitKey = UNIT_LABEL[pricing.unit];
  const unit = unitKey ? t(unitKey) : pricing.unit;
  const rates = (r: Pick<Pricing, 'input' | 'output' | 'cached_input'>) => {
    const parts = [t('models.price_input', { amount: format.amount(r.input) })];
    if (r.output != null) parts.push(t('models.price_output', { amount: format.amount(r.output) }));
    if (r.cached_input != null)
      parts.push(t('models.price_cached', { amount: format.amount(r.cached_input) }));
    return parts.join(' · ');
  };
  const text = `${rates(pricing)} ${t('models.per_unit', { unit })}`;
  const tier = pricing.long_context;
  if (tier === undefined) return text;
  // The provider's higher rates for a long prompt: the whole request is billed at them.
  const above = t('models.long_context', { tokens: format.number(tier.above_input_tokens) });
  return `${text}; ${above}: ${rates(tier)}`;
}

export function ModelsPage() {
  const i18n = useI18n();
  const { t, format } = i18n;
  const models = useAsync((signal) => listModels(signal), []);
  const [search, setSearch] = useState('');
  const [type, setType] = useState<'' | ModelType>('');
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (models.data ?? []).filter(
      (model) =>
        (type === '' || model.type === type) &&
        (needle === '' ||
          model.id.toLowerCase().includes(needle) ||
          (model.name ?? '').toLowerCase().includes(needle) ||
          (model.capabilities ?? []).some((capability) => capability.includes(needle))),
    );
  }, [models.data, search, type]);

  return (
    <section>
      <PageHeader title={t('models.title')} />
      <div class="filters card">
        <div class="filter-fields">
          <Field label={t('models.search')}>
            {(id) => (
              <input
                id={id}
                type="search"
                value={search}
                placeholder={t('models.search_placeholder')}
                onInput={(e) => setSearch(e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label={t('models.type')}>
            {(id) => (
              <select id={id} value={type} onChange={(e) => setType(e.currentTarget.value as '' | ModelType)}>
                <option value="">{t('models.all_types')}</option>
                {MODEL_TYPES.map((value) => (
                  <option key={value} value={value}>
                    {t(TYPE_LABEL[value])}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <p class="muted" role="status">
          {t('models.count', {
            n: format.number(shown.length),
            total: format.number(models.data?.length ?? 0),
          })}
        </p>
      </div>
      <AsyncView state={models} empty={(data) => data.length === 0} emptyText={t('models.empty')}>
        {() =>
          shown.length === 0 ? (
            <Empty>{t('models.no_match')}</Empty>
          ) : (
            <div class="table-wrap card">
              <table data-testid="models-table">
                <thead>
                  <tr>
                    <th scope="col">{t('models.model')}</th>
                    <th scope="col">{t('models.type')}</th>
                    <th scope="col" class="wide-only">
                      {t('models.capabilities')}
                    </th>
                    <th scope="col" class="num wide-only">
                      {t('models.context_window')}
                    </th>
                    <th scope="col">{t('models.price')}</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((model) => (
                    <tr key={model.id}>
                      <td>
                        <span class="block">{model.name ?? model.id}</span>
                        <code dir="ltr" class="muted">
                          {model.id}
                        </code>
                      </td>
                      <td>{model.type ? t(TYPE_LABEL[model.type]) : '—'}</td>
                      <td class="wide-only">
                        <ul class="chips">
                          {(model.capabilities ?? []).map((capability) => (
                            <li key={capability} class="chip" dir="ltr">
                              {capability}
                            </li>
                          ))}
                        </ul>
                      </td>
                      <td class="num wide-only">
                        {model.context_window != null ? format.number(model.context_window) : '—'}
                      </td>
                      <td class="price">{priceText(i18n, model)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </AsyncView>
    </section>
  );
}
