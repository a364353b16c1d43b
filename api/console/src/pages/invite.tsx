import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { setPassword } from '../api/endpoints.ts';
import { ErrorMessage, Field, PageHeader } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { homeOf, paths } from '../paths.ts';
import { useSession } from '../session.tsx';

export const MIN_PASSWORD_LENGTH = 10;

/** Reads `#token=…` once and drops it from the address bar and history. */
export function takeToken(): string | undefined {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const token = params.get('token') ?? undefined;
  if (token !== undefined) {
    history.replaceState(history.state, '', window.location.pathname + window.location.search);
  }
  return token;
}

/** `/console/invite#token=…` and `/console/reset#token=…`: choose a password, then signed in. */
export function InvitePage() {
  const { t } = useI18n();
  const { path, route } = useLocation();
  const { signedIn } = useSession();
  const [token] = useState(takeToken);
  const [password, setPasswordValue] = useState('');
  const [confirm, setConfirm] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const isReset = path === paths.reset;

  const tooShort = password.length < MIN_PASSWORD_LENGTH;
  const mismatch = confirm !== password;

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (token === undefined || tooShort || mismatch) return;
    setBusy(true);
    setError(undefined);
    try {
      const session = await setPassword(token, password);
      signedIn(session);
      route(homeOf(session.role), true);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <section class="narrow">
      <PageHeader title={isReset ? t('invite.reset_title') : t('invite.title')} />
      {token === undefined ? (
        <div class="card">
          <p role="alert">{t('invite.no_token')}</p>
          <a href={paths.signIn}>{t('invite.to_sign_in')}</a>
        </div>
      ) : (
        <form class="card form" onSubmit={submit} noValidate>
          <p>{isReset ? t('invite.reset_intro') : t('invite.intro')}</p>
          <Field
            label={t('invite.password')}
            hint={t('invite.password_hint', { n: MIN_PASSWORD_LENGTH })}
            error={touched && tooShort ? t('invite.too_short', { n: MIN_PASSWORD_LENGTH }) : undefined}
          >
            {(id, describedBy) => (
              <input
                id={id}
                name="new-password"
                type="password"
                autocomplete="new-password"
                dir="ltr"
                required
                minLength={MIN_PASSWORD_LENGTH}
                aria-describedby={describedBy}
                aria-invalid={touched && tooShort}
                value={password}
                onInput={(e) => setPasswordValue(e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label={t('invite.confirm')} error={touched && mismatch ? t('invite.mismatch') : undefined}>
            {(id, describedBy) => (
              <input
                id={id}
                name="confirm-password"
                type="password"
                autocomplete="new-password"
                dir="ltr"
                required
                aria-describedby={describedBy}
                aria-invalid={touched && mismatch}
                value={confirm}
                onInput={(e) => setConfirm(e.currentTarget.value)}
              />
            )}
          </Field>
          {error !== undefined ? <ErrorMessage error={error} /> : null}
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? t('common.working') : t('invite.submit')}
          </button>
        </form>
      )}
    </section>
  );
}
