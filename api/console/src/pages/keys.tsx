import { useState } from 'preact/hooks';
import { createKey, deleteKey, listKeys, updateKey } from '../api/endpoints.ts';
import type { ApiKey, CreatedKey } from '../api/types.ts';
import {
  AsyncView,
  ConfirmDialog,
  CopyButton,
  ErrorMessage,
  Modal,
  maskedKey,
  PageHeader,
  StatusBadge,
  useAsync,
} from '../components/ui.tsx';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';
import { KEY_LIMITS, KeyForm } from './key-form.tsx';

type Dialog =
  | { readonly kind: 'create' }
  | { readonly kind: 'created'; readonly key: CreatedKey }
  | { readonly kind: 'edit'; readonly key: ApiKey }
  | { readonly kind: 'delete'; readonly key: ApiKey }
  | undefined;

export function KeysPage() {
  const { t, format } = useI18n();
  const keys = useAsync((signal) => listKeys(signal), []);
  const [dialog, setDialog] = useState<Dialog>();
  const [actionError, setActionError] = useState<unknown>();
  const [busyKey, setBusyKey] = useState<string>();
  const list = (keys.data ?? []).filter((key) => key.state !== 'deleted');
  // The playground's key of a session holds no place among the 25 (docs/console.md).
  const activeCount = list.filter((key) => key.active && !key.console_playground).length;
  const atLimit = activeCount >= KEY_LIMITS.activeKeysMax;
  const close = () => setDialog(undefined);

  const toggle = async (key: ApiKey) => {
    setBusyKey(key.id);
    setActionError(undefined);
    try {
      await updateKey(key.id, { active: !key.active });
      keys.reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusyKey(undefined);
    }
  };

  return (
    <section>
      <PageHeader title={t('keys.title')}>
        <button
          type="button"
          class="button button-primary"
          disabled={atLimit}
          aria-describedby="key-limit-note"
          onClick={() => setDialog({ kind: 'create' })}
        >
          {t('keys.create')}
        </button>
      </PageHeader>
      <p id="key-limit-note" class={atLimit ? 'note note-warning' : 'note'}>
        {t('keys.limit_note', {
          n: format.number(activeCount),
          max: format.number(KEY_LIMITS.activeKeysMax),
        })}{' '}
        {atLimit ? t('keys.limit_reached') : null}
      </p>
      {actionError !== undefined ? <ErrorMessage error={actionError} /> : null}
      <AsyncView
        state={keys}
        empty={(data) => data.filter((key) => key.state !== 'deleted').length === 0}
        emptyText={t('keys.empty')}
      >
        {() => (
          <ul class="key-list">
            {list.map((key) => (
              <KeyCard
                key={key.id}
                apiKey={key}
                busy={busyKey === key.id}
                onEdit={() => setDialog({ kind: 'edit', key })}
                onToggle={() => toggle(key)}
                onDelete={() => setDialog({ kind: 'delete', key })}
              />
            ))}
          </ul>
        )}
      </AsyncView>

      <Modal title={t('keys.create_title')} open={dialog?.kind === 'create'} onClose={close} wide>
        {dialog?.kind === 'create' ? (
          <KeyForm
            submitLabel={t('keys.create')}
            onCancel={close}
            onSubmit={async (settings) => {
              const created = await createKey(settings);
              keys.reload();
              setDialog({ kind: 'created', key: created });
            }}
          />
        ) : null}
      </Modal>

      <Modal title={t('keys.created_title')} open={dialog?.kind === 'created'} onClose={close}>
        {dialog?.kind === 'created' ? <CreatedKeyView created={dialog.key} onDone={close} /> : null}
      </Modal>

      <Modal title={t('keys.edit_title')} open={dialog?.kind === 'edit'} onClose={close} wide>
        {dialog?.kind === 'edit' ? (
          <KeyForm
            keyToEdit={dialog.key}
            submitLabel={t('common.save')}
            onCancel={close}
            onSubmit={async (settings) => {
              await updateKey(dialog.key.id, settings);
              keys.reload();
              close();
            }}
          />
        ) : null}
      </Modal>

      <ConfirmDialog
        open={dialog?.kind === 'delete'}
        title={t('keys.delete_title')}
        danger
        confirmLabel={t('keys.delete')}
        message={
          dialog?.kind === 'delete' ? (
            <p>
              {t('keys.delete_confirm', { name: dialog.key.name || t('keys.unnamed') })}{' '}
              <code dir="ltr">{maskedKey(dialog.key.last4)}</code>
            </p>
          ) : null
        }
        onClose={close}
        onConfirm={async () => {
          if (dialog?.kind !== 'delete') return;
          await deleteKey(dialog.key.id);
          keys.reload();
        }}
      />
    </section>
  );
}

/** The full key, this once: copy it now, it will not be shown again. */
function CreatedKeyView({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <div class="created-key">
      <p class="note note-warning" role="alert">
        {t('keys.created_warning')}
      </p>
      <label class="field">
        <span>{t('keys.full_key')}</span>
        <input
          readOnly
          dir="ltr"
          class="mono"
          value={created.key}
          data-testid="created-key"
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <div class="actions">
        <CopyButton text={created.key} label={t('keys.copy_key')} testId="copy-key" />
        <button type="button" class="button button-primary" onClick={onDone}>
          {t('keys.saved_it')}
        </button>
      </div>
    </div>
  );
}

const STATE_LABEL: Record<ApiKey['state'], MessageKey> = {
  active: 'keys.state_active',
  disabled: 'keys.state_disabled',
  expired: 'keys.state_expired',
  deleted: 'keys.state_deleted',
};

function KeyCard(props: {
  apiKey: ApiKey;
  busy: boolean;
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const { t, format } = useI18n();
  const key = props.apiKey;
  const spend = key.spent_this_month;
  const capShare = key.monthly_cap ? Math.min(100, (spend / key.monthly_cap) * 100) : undefined;
  const title = key.name || t('keys.unnamed');
  return (
    <li class="card key-card" data-testid="key-card" data-key-id={key.id}>
      <div class="key-card-head">
        <h2 class="key-name">{title}</h2>
        <code dir="ltr" class="key-mask">
          {maskedKey(key.last4)}
        </code>
        <StatusBadge status={key.state} label={t(STATE_LABEL[key.state])} />
      </div>
      {key.console_playground ? <p class="note">{t('keys.playground_note')}</p> : null}
      <dl class="props">
        <div>
          <dt>{t('keys.rate_limit')}</dt>
          <dd>{t('keys.per_minute', { n: format.number(key.rate_limit) })}</dd>
        </div>
        <div>
          <dt>{t('keys.monthly_cap')}</dt>
          <dd>
            {key.monthly_cap == null ? (
              <>
                {t('keys.no_cap')} · {t('keys.spent', { amount: format.money(spend) })}
              </>
            ) : (
              <>
                {t('keys.spent_of', { amount: format.money(spend), cap: format.money(key.monthly_cap) })}
                <progress
                  class="cap-bar"
                  max={100}
                  value={capShare}
                  aria-label={t('keys.cap_used', { p: format.percent(capShare ?? 0) })}
                />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('keys.allowed_ips')}</dt>
          <dd
            dir={key.allowed_ips.length ? 'ltr' : undefined}
            class={key.allowed_ips.length ? 'list-inline' : ''}
          >
            {key.allowed_ips.length ? key.allowed_ips.join(', ') : t('keys.ips_all')}
          </dd>
        </div>
        <div>
          <dt>{t('keys.allowed_models')}</dt>
          <dd dir={key.allowed_models ? 'ltr' : undefined} class={key.allowed_models ? 'list-inline' : ''}>
            {key.allowed_models ? key.allowed_models.join(', ') : t('keys.models_all')}
          </dd>
        </div>
        <div>
          <dt>{t('keys.expiry')}</dt>
          <dd>{key.expires_at ? format.dateTime(key.expires_at) : t('keys.never')}</dd>
        </div>
        <div>
          <dt>{t('keys.identity_injection')}</dt>
          <dd>{key.identity_injection ? t('common.on') : t('common.off')}</dd>
        </div>
        <div>
          <dt>{t('keys.created')}</dt>
          <dd>{format.dateTime(key.created_at)}</dd>
        </div>
        <div>
          <dt>{t('keys.last_used')}</dt>
          <dd>{key.last_used_at ? format.dateTime(key.last_used_at) : t('keys.never_used')}</dd>
        </div>
      </dl>
      <div class="actions actions-start">
        <button
          type="button"
          class="button"
          onClick={props.onEdit}
          aria-label={t('keys.edit_named', { name: title })}
        >
          {t('keys.edit')}
        </button>
        <button
          type="button"
          class="button"
          disabled={props.busy}
          onClick={props.onToggle}
          aria-label={t(key.active ? 'keys.disable_named' : 'keys.enable_named', { name: title })}
        >
          {key.active ? t('keys.disable') : t('keys.enable')}
        </button>
        <button
          type="button"
          class="button button-danger-outline"
          onClick={props.onDelete}
          aria-label={t('keys.delete_named', { name: title })}
        >
          {t('keys.delete')}
        </button>
      </div>
    </li>
  );
}
