/** The settings of a key (create and edit): every per-key setting of the spec. */
import { useMemo, useState } from 'preact/hooks';
import { listModels } from '../api/endpoints.ts';
import type { ApiKey, KeySettings } from '../api/types.ts';
import { ErrorMessage, Field, Loading, useAsync } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';

export const KEY_LIMITS = {
  rateMin: 1,
  rateMax: 3000,
  rateDefault: 60,
  ipsMax: 50,
  nameMax: 100,
  activeKeysMax: 25,
} as const;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:.]+$/i;

/** `<input type="datetime-local">` text in this browser's zone for an ISO instant. */
function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

interface FormState {
  name: string;
  rateLimit: string;
  capped: boolean;
  cap: string;
  ips: string;
  restrictModels: boolean;
  models: string[];
  identity: boolean;
  expires: boolean;
  expiresAt: string;
  active: boolean;
}

function initialState(key: ApiKey | undefined): FormState {
  return {
    name: key?.name ?? '',
    rateLimit: String(key?.rate_limit ?? KEY_LIMITS.rateDefault),
    capped: key?.monthly_cap != null,
    cap: key?.monthly_cap != null ? String(key.monthly_cap) : '',
    ips: (key?.allowed_ips ?? []).join('\n'),
    restrictModels: key?.allowed_models != null,
    models: [...(key?.allowed_models ?? [])],
    identity: key?.identity_injection ?? true,
    expires: key?.expires_at != null,
    expiresAt: toLocalInput(key?.expires_at),
    active: key?.active ?? true,
  };
}

type Errors = Partial<Record<'rateLimit' | 'cap' | 'ips' | 'models' | 'expiresAt' | 'name', string>>;

export function KeyForm(props: {
  keyToEdit?: ApiKey;
  submitLabel: string;
  onSubmit: (settings: KeySettings) => Promise<void>;
  onCancel: () => void;
}) {
  const { t, format } = useI18n();
  const [form, setForm] = useState<FormState>(() => initialState(props.keyToEdit));
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const set = <K extends keyof FormState>(field: K, value: FormState[K]) =>
    setForm((previous) => ({ ...previous, [field]: value }));

  const validate = (): KeySettings | undefined => {
    const found: Errors = {};
    const rate = Number(form.rateLimit);
    if (!Number.isInteger(rate) || rate < KEY_LIMITS.rateMin || rate > KEY_LIMITS.rateMax) {
      found.rateLimit = t('keys.rate_limit_invalid', {
        min: format.number(KEY_LIMITS.rateMin),
        max: format.number(KEY_LIMITS.rateMax),
      });
    }
    const cap = Number(form.cap);
    if (form.capped && !(form.cap.trim() !== '' && Number.isFinite(cap) && cap > 0)) {
      found.cap = t('keys.cap_invalid');
    }
    const ips = splitList(form.ips);
    if (ips.length > KEY_LIMITS.ipsMax)
      found.ips = t('keys.ips_too_many', { n: format.number(KEY_LIMITS.ipsMax) });
    const badIp = ips.find(
      (ip) => ip.includes('/') || !(IPV4.test(ip) || (ip.includes(':') && IPV6.test(ip))),
    );
    if (badIp !== undefined && found.ips === undefined) found.ips = t('keys.ip_invalid', { ip: badIp });
    if (form.restrictModels && form.models.length === 0) found.models = t('keys.models_empty');
    let expiresAt: string | null = null;
    if (form.expires) {
      const date = new Date(form.expiresAt);
      if (form.expiresAt === '' || Number.isNaN(date.getTime())) found.expiresAt = t('keys.expiry_invalid');
      else expiresAt = date.toISOString();
    }
    if (form.name.length > KEY_LIMITS.nameMax)
      found.name = t('keys.name_too_long', { n: KEY_LIMITS.nameMax });
    setErrors(found);
    if (Object.keys(found).length > 0) return undefined;
    const settings: KeySettings = {
      name: form.name.trim(),
      rate_limit: rate,
      monthly_cap: form.capped ? cap : null,
      allowed_ips: ips,
      allowed_models: form.restrictModels ? form.models : null,
      identity_injection: form.identity,
      expires_at: expiresAt,
    };
    if (props.keyToEdit === undefined) settings.active = form.active;
    return settings;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const settings = validate();
    if (settings === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      await props.onSubmit(settings);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form key-form" onSubmit={submit} noValidate>
      <Field label={t('keys.name')} hint={t('keys.name_hint')} error={errors.name}>
        {(id, describedBy) => (
          <input
            id={id}
            name="name"
            maxLength={KEY_LIMITS.nameMax}
            aria-describedby={describedBy}
            value={form.name}
            onInput={(e) => set('name', e.currentTarget.value)}
          />
        )}
      </Field>
      <Field
        label={t('keys.rate_limit')}
        hint={t('keys.rate_limit_hint', {
          min: format.number(KEY_LIMITS.rateMin),
          max: format.number(KEY_LIMITS.rateMax),
          d: format.number(KEY_LIMITS.rateDefault),
        })}
        error={errors.rateLimit}
      >
        {(id, describedBy) => (
          <input
            id={id}
            name="rate_limit"
            type="number"
            inputMode="numeric"
            min={KEY_LIMITS.rateMin}
            max={KEY_LIMITS.rateMax}
            step={1}
            dir="ltr"
            aria-describedby={describedBy}
            aria-invalid={errors.rateLimit !== undefined}
            value={form.rateLimit}
            onInput={(e) => set('rateLimit', e.currentTarget.value)}
          />
        )}
      </Field>

      <fieldset class="fieldset">
        <legend>{t('keys.monthly_cap')}</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={form.capped}
            onChange={(e) => set('capped', e.currentTarget.checked)}
          />
          {t('keys.cap_enable')}
        </label>
        {form.capped ? (
          <Field label={t('keys.cap_amount')} hint={t('keys.cap_hint')} error={errors.cap}>
            {(id, describedBy) => (
              <input
                id={id}
                name="monthly_cap"
                type="number"
                inputMode="decimal"
                min={0}
                step="any"
                dir="ltr"
                aria-describedby={describedBy}
                aria-invalid={errors.cap !== undefined}
                value={form.cap}
                onInput={(e) => set('cap', e.currentTarget.value)}
              />
            )}
          </Field>
        ) : null}
      </fieldset>

      <Field
        label={t('keys.allowed_ips')}
        hint={t('keys.allowed_ips_hint', { n: format.number(KEY_LIMITS.ipsMax) })}
        error={errors.ips}
      >
        {(id, describedBy) => (
          <textarea
            id={id}
            name="allowed_ips"
            rows={3}
            dir="ltr"
            placeholder="203.0.113.7"
            aria-describedby={describedBy}
            aria-invalid={errors.ips !== undefined}
            value={form.ips}
            onInput={(e) => set('ips', e.currentTarget.value)}
          />
        )}
      </Field>

      <fieldset class="fieldset">
        <legend>{t('keys.allowed_models')}</legend>
        <label class="check">
          <input
            type="radio"
            name="model-scope"
            checked={!form.restrictModels}
            onChange={() => set('restrictModels', false)}
          />
          {t('keys.models_all')}
        </label>
        <label class="check">
          <input
            type="radio"
            name="model-scope"
            checked={form.restrictModels}
            onChange={() => set('restrictModels', true)}
          />
          {t('keys.models_some')}
        </label>
        {form.restrictModels ? (
          <ModelPicker
            selected={form.models}
            onChange={(models) => set('models', models)}
            error={errors.models}
          />
        ) : null}
      </fieldset>

      <label class="check">
        <input
          type="checkbox"
          name="identity_injection"
          checked={form.identity}
          onChange={(e) => set('identity', e.currentTarget.checked)}
        />
        <span>
          {t('keys.identity_injection')}
          <small class="hint block">{t('keys.identity_hint')}</small>
        </span>
      </label>

      <fieldset class="fieldset">
        <legend>{t('keys.expiry')}</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={form.expires}
            onChange={(e) => set('expires', e.currentTarget.checked)}
          />
          {t('keys.expiry_enable')}
        </label>
        {form.expires ? (
          <Field
            label={t('keys.expires_at')}
            error={errors.expiresAt}
            hint={
              form.expiresAt && !Number.isNaN(new Date(form.expiresAt).getTime())
                ? format.dateTime(new Date(form.expiresAt))
                : t('keys.expiry_hint')
            }
          >
            {(id, describedBy) => (
              <input
                id={id}
                name="expires_at"
                type="datetime-local"
                dir="ltr"
                aria-describedby={describedBy}
                aria-invalid={errors.expiresAt !== undefined}
                value={form.expiresAt}
                onInput={(e) => set('expiresAt', e.currentTarget.value)}
              />
            )}
          </Field>
        ) : null}
      </fieldset>

      {props.keyToEdit === undefined ? (
        <label class="check">
          <input
            type="checkbox"
            name="active"
            checked={form.active}
            onChange={(e) => set('active', e.currentTarget.checked)}
          />
          {t('keys.active_on_create')}
        </label>
      ) : null}

      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <div class="actions">
        <button type="button" class="button" onClick={props.onCancel}>
          {t('common.cancel')}
        </button>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : props.submitLabel}
        </button>
      </div>
    </form>
  );
}

function ModelPicker(props: { selected: string[]; onChange: (models: string[]) => void; error?: string }) {
  const { t, format } = useI18n();
  const models = useAsync((signal) => listModels(signal), []);
  const [search, setSearch] = useState('');
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (models.data ?? []).filter(
      (model) =>
        needle === '' ||
        model.id.toLowerCase().includes(needle) ||
        model.name?.toLowerCase().includes(needle),
    );
  }, [models.data, search]);
  const toggle = (id: string, on: boolean) =>
    props.onChange(on ? [...props.selected, id] : props.selected.filter((model) => model !== id));
  if (models.status === 'error') return <ErrorMessage error={models.error} onRetry={models.reload} />;
  if (models.data === undefined) return <Loading />;
  return (
    <div class="model-picker">
      <Field
        label={t('keys.models_search')}
        hint={t('keys.models_selected', { n: format.number(props.selected.length) })}
        error={props.error}
      >
        {(id, describedBy) => (
          <input
            id={id}
            type="search"
            dir="ltr"
            aria-describedby={describedBy}
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        )}
      </Field>
      <ul class="checklist">
        {shown.map((model) => (
          <li key={model.id}>
            <label class="check">
              <input
                type="checkbox"
                checked={props.selected.includes(model.id)}
                onChange={(e) => toggle(model.id, e.currentTarget.checked)}
              />
              <code dir="ltr">{model.id}</code>
            </label>
          </li>
        ))}
      </ul>
    </div>
  );
}
