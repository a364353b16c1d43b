/** Sign-up, "check your mail", the verification link and the forgotten-password form. */
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { forgotPassword, getSelfServe, signUp, verifySignUp } from '../api/endpoints.ts';
import { AsyncView, ErrorMessage, Field, Loading, PageHeader, useAsync } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { paths } from '../paths.ts';
import { useSession } from '../session.tsx';
import { MIN_PASSWORD_LENGTH, takeToken } from './invite.tsx';

export function SignUpPage() {
  const { t } = useI18n();
  const settings = useAsync((signal) => getSelfServe(signal), []);
  return (
    <section class="narrow">
      <PageHeader title={t('signup.title')} />
      <AsyncView state={settings}>
        {(data) =>
          data.sign_up === 'open' ? (
            <SignUpForm />
          ) : (
            <div class="card">
              <p role="status">{t('signup.closed')}</p>
            </div>
          )
        }
      </AsyncView>
      <p class="muted">
        <a href={paths.signIn}>{t('signup.have_account')}</a>
      </p>
    </section>
  );
}

function SignUpForm() {
  const { t, format } = useI18n();
  const n = format.number(MIN_PASSWORD_LENGTH);
  const { route } = useLocation();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPasswordValue] = useState('');
  const [confirm, setConfirm] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const tooShort = [...password].length < MIN_PASSWORD_LENGTH;
  const mismatch = confirm !== password;

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (tooShort || mismatch || email.trim() === '') return;
    setBusy(true);
    setError(undefined);
    try {
      await signUp(email.trim(), password, name.trim() === '' ? null : name.trim());
      route(`${paths.checkMail}?email=${encodeURIComponent(email.trim())}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form class="card form" onSubmit={submit} noValidate data-testid="sign-up-form">
      <p>{t('signup.intro')}</p>
      <Field label={t('signup.email')}>
        {(id) => (
          <input
            id={id}
            name="email"
            type="email"
            autocomplete="email"
            required
            dir="ltr"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label={t('signup.name')}>
        {(id) => (
          <input
            id={id}
            name="name"
            autocomplete="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field
        label={t('invite.password')}
        hint={t('invite.password_hint', { n })}
        error={touched && tooShort ? t('invite.too_short', { n }) : undefined}
      >
        {(id, describedBy) => (
          <input
            id={id}
            name="new-password"
            type="password"
            autocomplete="new-password"
            dir="ltr"
            required
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
        {busy ? t('common.working') : t('signup.submit')}
      </button>
    </form>
  );
}

/** `/console/check-mail?email=…`: where sign-up and the forgotten-password form lead. */
export function CheckMailPage() {
  const { t } = useI18n();
  const { query } = useLocation();
  const email = typeof query.email === 'string' && query.email !== '' ? query.email : undefined;
  return (
    <section class="narrow">
      <PageHeader title={t('checkmail.title')} />
      <div class="card" role="status" data-testid="check-mail">
        <p>
          {email === undefined
            ? t('checkmail.body_any')
            : t('checkmail.body', { email: `\u2068${email}\u2069` })}
        </p>
        <p class="muted">{t('checkmail.spam')}</p>
      </div>
      <p class="muted">
        <a href={paths.signIn}>{t('invite.to_sign_in')}</a>
      </p>
    </section>
  );
}

/** `/console/verify#token=…`: the verification link of a sign-up opens the account and signs in. */
export function VerifyPage() {
  const { t } = useI18n();
  const { route } = useLocation();
  const { state, signedIn } = useSession();
  const [token] = useState(takeToken);
  const [error, setError] = useState<unknown>();
  // After the page's own session check: its answer (signed out) must not replace the new session.
  const checked = state.status !== 'checking';
  useEffect(() => {
    if (token === undefined || !checked) return;
    let cancelled = false;
    verifySignUp(token)
      .then((session) => {
        if (cancelled) return;
        signedIn(session);
        route(paths.wallet, true);
      })
      .catch((err: unknown) => {
        if (!cancelled) setError(err);
      });
    return () => {
      cancelled = true;
    };
  }, [token, checked]);
  return (
    <section class="narrow">
      <PageHeader title={t('verify.title')} />
      <div class="card">
        {token === undefined ? (
          <p role="alert">{t('invite.no_token')}</p>
        ) : error === undefined ? (
          <Loading label={t('verify.working')} />
        ) : (
          <>
            <p role="alert">{t('verify.failed')}</p>
            <ErrorMessage error={error} />
            <a href={paths.signUp}>{t('verify.again')}</a>
          </>
        )}
      </div>
    </section>
  );
}

/** `/console/forgot`: mails a reset link (the same answer whatever the address). */
export function ForgotPage() {
  const { t } = useI18n();
  const { route } = useLocation();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await forgotPassword(email.trim());
      route(`${paths.checkMail}?email=${encodeURIComponent(email.trim())}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <PageHeader title={t('forgot.title')} />
      <form class="card form" onSubmit={submit}>
        <p>{t('forgot.intro')}</p>
        <Field label={t('signup.email')}>
          {(id) => (
            <input
              id={id}
              name="email"
              type="email"
              autocomplete="username"
              required
              dir="ltr"
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        {error !== undefined ? <ErrorMessage error={error} /> : null}
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('common.working') : t('forgot.submit')}
        </button>
      </form>
      <p class="muted">
        <a href={paths.signIn}>{t('invite.to_sign_in')}</a>
      </p>
    </section>
  );
}
