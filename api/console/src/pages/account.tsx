import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { changePassword, signOutEverywhere } from '../api/endpoints.ts';
import { ConfirmDialog, ErrorMessage, Field, PageHeader } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { paths } from '../paths.ts';
import { useCurrentSession, useSession } from '../session.tsx';
import { MIN_PASSWORD_LENGTH } from './invite.tsx';

export function AccountPage() {
  const { t, format } = useI18n();
  const session = useCurrentSession();
  const { recheck } = useSession();
  const { route } = useLocation();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState(false);
  const [confirmAll, setConfirmAll] = useState(false);
  const account = session?.account;
  const tooShort = next.length < MIN_PASSWORD_LENGTH;

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    setDone(false);
    if (tooShort || current === '') return;
    setBusy(true);
    setError(undefined);
    try {
      await changePassword(current, next);
      setCurrent('');
      setNext('');
      setTouched(false);
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <PageHeader title={t('account.title')} />
      {account ? (
        <div class="card">
          <dl class="props">
            <div>
              <dt>{t('account.email')}</dt>
              <dd dir="ltr">{account.email}</dd>
            </div>
            {account.name ? (
              <div>
                <dt>{t('account.name')}</dt>
                <dd>{account.name}</dd>
              </div>
            ) : null}
            {account.created_at ? (
              <div>
                <dt>{t('account.since')}</dt>
                <dd>{format.date(account.created_at)}</dd>
              </div>
            ) : null}
          </dl>
        </div>
      ) : null}
      <form class="card form narrow-form" onSubmit={submit} noValidate>
        <h2>{t('account.change_password')}</h2>
        <Field label={t('account.current_password')}>
          {(id) => (
            <input
              id={id}
              type="password"
              autocomplete="current-password"
              dir="ltr"
              required
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          label={t('account.new_password')}
          hint={t('invite.password_hint', { n: MIN_PASSWORD_LENGTH })}
          error={touched && tooShort ? t('invite.too_short', { n: MIN_PASSWORD_LENGTH }) : undefined}
        >
          {(id, describedBy) => (
            <input
              id={id}
              type="password"
              autocomplete="new-password"
              dir="ltr"
              required
              aria-describedby={describedBy}
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        <p class="muted">{t('account.other_sessions_end')}</p>
        {error !== undefined ? <ErrorMessage error={error} /> : null}
        {done ? (
          <p class="note note-success" role="status">
            {t('account.password_changed')}
          </p>
        ) : null}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('account.change_password')}
        </button>
      </form>
      <div class="card">
        <h2>{t('account.sessions')}</h2>
        <p>{t('account.sign_out_everywhere_hint')}</p>
        <button type="button" class="button button-danger-outline" onClick={() => setConfirmAll(true)}>
          {t('account.sign_out_everywhere')}
        </button>
      </div>
      <ConfirmDialog
        open={confirmAll}
        title={t('account.sign_out_everywhere')}
        message={<p>{t('account.sign_out_everywhere_confirm')}</p>}
        confirmLabel={t('account.sign_out_everywhere')}
        danger
        onClose={() => setConfirmAll(false)}
        onConfirm={async () => {
          await signOutEverywhere();
          recheck();
          route(paths.signIn);
        }}
      />
    </section>
  );
}
