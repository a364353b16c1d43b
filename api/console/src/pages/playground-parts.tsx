/** What every try of the playground shares: the model select, the run state, the submit row, the cost. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Model } from '../api/types.ts';
import { ErrorMessage, Field } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';

/** A model select, preferring the offline demo model so a first try costs nothing real. */
export function ModelSelect(props: {
  models: readonly Model[];
  value: string;
  onChange: (id: string) => void;
}) {
  const { t } = useI18n();
  return (
    <Field label={t('playground.model')}>
      {(id) => (
        <select
          id={id}
          name="model"
          value={props.value}
          onChange={(e) => props.onChange(e.currentTarget.value)}
        >
          {props.models.map((model) => (
            <option key={model.id} value={model.id}>
              {model.id}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function defaultModel(models: readonly Model[]): string {
  return models.find((model) => model.id.startsWith('demo/'))?.id ?? models[0]?.id ?? '';
}

export function useRun() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const controller = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => controller.current?.abort(), []);
  const run = async (work: (signal: AbortSignal) => Promise<void>) => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setBusy(true);
    setError(undefined);
    try {
      await work(current.signal);
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'AbortError')) setError(err);
    } finally {
      if (controller.current === current) setBusy(false);
    }
  };
  const stop = () => {
    controller.current?.abort();
    setBusy(false);
  };
  return { busy, error, run, stop };
}

/** The submit row of a media try: the button, then the error of the last run. */
export function TrySubmit(props: { busy: boolean; ready: boolean; label: string; error: unknown }) {
  const { t } = useI18n();
  const { busy, ready, label, error } = props;
  return (
    <>
      <div class="actions actions-start">
        <button type="submit" class="button button-primary" disabled={busy || !ready}>
          {busy ? t('common.working') : label}
        </button>
      </div>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
    </>
  );
}

export function Cost({ cost }: { cost: number | undefined }) {
  const { t, format } = useI18n();
  if (cost === undefined) return null;
  return (
    <p class="cost" data-testid="playground-cost" role="status">
      {t('playground.cost', { amount: format.money(cost) })}
    </p>
  );
}

/** The text a media try sends (a prompt, or the words to speak). */
export function PromptField(props: { label: string; value: string; onInput: (value: string) => void }) {
  return (
    <Field label={props.label}>
      {(id) => (
        <textarea
          id={id}
          rows={2}
          dir="auto"
          required
          value={props.value}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** An object URL for the latest blob of a try, revoked when replaced or when the try goes away. */
export function useObjectUrl(): [string | undefined, (blob: Blob | undefined) => void] {
  const [url, setUrl] = useState<string>();
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return [url, (blob) => setUrl(blob === undefined ? undefined : URL.createObjectURL(blob))];
}
