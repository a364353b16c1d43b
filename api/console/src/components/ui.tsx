/** Small shared pieces: async loading, the three states of a page, dialogs, copy, fields. */
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { useI18n } from '../i18n/i18n.tsx';
import { describeError } from './errors.ts';

export type Async<T> =
  | { readonly status: 'loading'; readonly data?: T }
  | { readonly status: 'ready'; readonly data: T }
  | { readonly status: 'error'; readonly error: unknown; readonly data?: T };

/**
 * Runs `load` when `deps` change (aborting the previous run) and on `reload()`; keeps the last data
 * while reloading so a page does not flash back to its loading state.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): Async<T> & { reload: () => void } {
  const [state, setState] = useState<Async<T>>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ status: 'loading', data: previous.data }));
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'ready', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted)
          setState((previous) => ({ status: 'error', error, data: previous.data }));
      },
    );
    return () => controller.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

export function Loading({ label }: { label?: string }) {
  const { t } = useI18n();
  return (
    <div class="state state-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      <span>{label ?? t('common.loading')}</span>
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return (
    <div class="state state-empty" role="status">
      {children}
    </div>
  );
}

export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const i18n = useI18n();
  const text = describeError(i18n, error);
  return (
    <div class="state state-error" role="alert">
      <p class="error-message">{text.message}</p>
      {text.detail ? (
        <p class="error-detail" dir="auto">
          {text.detail}
        </p>
      ) : null}
      {text.requestId ? (
        <p class="error-detail">
          {i18n.t('error.request_id')} <code dir="ltr">{text.requestId}</code>
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" class="button" onClick={onRetry}>
          {i18n.t('common.retry')}
        </button>
      ) : null}
    </div>
  );
}

/** Loading, error and ready in one place; `empty` decides when ready data shows the empty state. */
export function AsyncView<T>(props: {
  state: Async<T> & { reload: () => void };
  empty?: (data: T) => boolean;
  emptyText?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  const { state } = props;
  if (state.status === 'error') return <ErrorMessage error={state.error} onRetry={state.reload} />;
  if (state.data === undefined) return <Loading />;
  if (props.empty?.(state.data)) return <Empty>{props.emptyText}</Empty>;
  return (
    <div class={state.status === 'loading' ? 'refreshing' : undefined} aria-busy={state.status === 'loading'}>
      {props.children(state.data)}
    </div>
  );
}

/** A modal dialog on the native `<dialog>`: focus stays inside, Escape closes it. */
export function Modal(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const openRef = useRef(props.open);
  openRef.current = props.open;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  const { t } = useI18n();
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'modal modal-wide' : 'modal'}
      aria-labelledby={titleId}
      onClose={() => {
        // Only a close the user asked for (the form's own `dialog.close()` follows `open` already).
        if (openRef.current) props.onClose();
      }}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      {props.open ? (
        <>
          <header class="modal-header">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" class="icon-button" aria-label={t('common.close')} onClick={props.onClose}>
              ×
            </button>
          </header>
          <div class="modal-body">{props.children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** Asks before an irreversible step; the confirm button shows the call's progress and error. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (props.open) setError(undefined);
  }, [props.open]);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={props.title} open={props.open} onClose={props.onClose}>
      <div class="confirm-message">{props.message}</div>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <div class="actions">
        <button type="button" class="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          class={props.danger ? 'button button-danger' : 'button button-primary'}
          disabled={busy}
          onClick={confirm}
        >
          {busy ? t('common.working') : props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/** Copies `text` to the clipboard and says so (falls back to selecting `selectTarget`). */
export function CopyButton({ text, label, testId }: { text: string; label?: string; testId?: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    setTimeout(() => setCopied(undefined), 2500);
  };
  return (
    <span class="copy">
      <button type="button" class="button" onClick={copy} data-testid={testId}>
        {label ?? t('common.copy')}
      </button>
      <span class="copy-status" role="status" aria-live="polite">
        {copied === 'yes' ? t('common.copied') : copied === 'no' ? t('common.copy_failed') : ''}
      </span>
    </span>
  );
}

/** A labelled form control with an optional hint and an error tied to it for screen readers. */
export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: (id: string, describedBy: string | undefined) => JSX.Element;
  class?: string;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field ${props.class ?? ''}`}>
      <label for={id}>{props.label}</label>
      {props.children(id, describedBy)}
      {props.hint ? (
        <small id={hintId} class="hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={errorId} class="field-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1 tabIndex={-1} data-page-title>
        {title}
      </h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </header>
  );
}

/** A key as `hk-…last4`: the only part of it the console can show after creation. */
export function maskedKey(last4: string): string {
  return `hk-…${last4}`;
}

/** Saves a Blob as a file through a temporary link. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Newer/older paging over a cursor API: keeps the cursors seen so "newer" can go back. */
export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const current = cursors[cursors.length - 1];
  return {
    cursor: current,
    page: cursors.length,
    older: (next: string) => setCursors((list) => [...list, next]),
    newer: () => setCursors((list) => (list.length > 1 ? list.slice(0, -1) : list)),
    reset: () => setCursors([undefined]),
  };
}

export function Pager(props: {
  page: number;
  hasNewer: boolean;
  hasOlder: boolean;
  onNewer: () => void;
  onOlder: () => void;
  newerLabel?: string;
  olderLabel?: string;
}) {
  const { t, format } = useI18n();
  return (
    <nav class="pager" aria-label={t('common.pagination')}>
      <button type="button" class="button" disabled={!props.hasNewer} onClick={props.onNewer}>
        {props.newerLabel ?? t('common.newer')}
      </button>
      <span class="pager-page">{t('common.page', { n: format.number(props.page) })}</span>
      <button type="button" class="button" disabled={!props.hasOlder} onClick={props.onOlder}>
        {props.olderLabel ?? t('common.older')}
      </button>
    </nav>
  );
}

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span class={`badge badge-${status}`}>{label}</span>;
}
