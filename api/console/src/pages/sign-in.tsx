import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { getSelfServe, operatorSignIn, signIn } from '../api/endpoints.ts';
import type { Session } from '../api/types.ts';
import { ErrorMessage, Field, PageHeader, useAsync } from '../components/ui.tsx';
import { useI18n } from '../i18n/i18n.tsx';
import { BASE, homeOf, paths } from '../paths.ts';
import { useSession } from '../session.tsx';

type Mode = 'holder' | 'operator';

export function SignInPage() {
  const { t } = useI18n();
  const { state, signedIn } = useSession();
  const { route, query } = useLocation();
  const [mode, setMode] = useState<Mode>(query.as === 'operator' ? 'operator' : 'holder');

  const goOn = (session: Session) => {
    signedIn(session);
    const next = query.next;
    const safe = typeof next === 'string' && next.startsWith(`${BASE}/`) && !next.startsWith('//');
    route(safe ? next : homeOf(session.role), true);
  };

  useEffect(() => {
    if (state.status === 'signed-in') route(homeOf(state.session.role), true);
  }, [state, route]);

  return (
    <section class="narrow">
      <PageHeader title={t('signin.title')} />
      <div class="tabs" role="tablist" aria-label={t('signin.as')}>
        {(['holder', 'operator'] as const).map((value) => (
          <button
            key={value}
            type="button"
            role="tab"
            id={`signin-tab-${value}`}
            aria-selected={mode === value}
            aria-controls="signin-panel"
            class={mode === value ? 'tab tab-active' : 'tab'}
            onClick={() => setMode(value)}
          >
            {value === 'holder' ? t('signin.holder') : t('signin.operator')}
          </button>
        ))}
      </div>
      <div class="card" role="tabpanel" id="signin-panel" aria-labelledby={`signin-tab-${mode}`}>
        {mode === 'holder' ? <HolderForm onDone={goOn} /> : <OperatorForm onDone={goOn} />}
      </div>
      <p class="muted">{t('signin.no_password')}</p>
      <SelfServeLinks />
    </section>
  );
}

function HolderForm({ onDone }: { onDone: (session: Session) => void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPasswordValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onDone(await signIn(email.trim(), password));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} class="form">
      <Field label={t('signin.email')}>
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
      <Field label={t('signin.password')}>
        {(id) => (
          <input
            id={id}
            name="password"
            type="password"
            autocomplete="current-password"
            required
            dir="ltr"
            value={password}
            onInput={(e) => setPasswordValue(e.currentTarget.value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? t('common.working') : t('signin.submit')}
      </button>
    </form>
  );
}

function OperatorForm({ onDone }: { onDone: (session: Session) => void }) {
  const { t } = useI18n();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onDone(await operatorSignIn(token.trim()));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} class="form">
      <Field label={t('signin.token')} hint={t('signin.token_hint')}>
        {(id, describedBy) => (
          <input
            id={id}
            name="token"
            type="password"
            autocomplete="off"
            required
            dir="ltr"
            aria-describedby={describedBy}
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
        )}
      </Field>
      {error !== undefined ? <ErrorMessage error={error} /> : null}
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? t('common.working') : t('signin.submit_operator')}
      </button>
    </form>
  );
}

/** Forgotten password, and sign-up where it is open (SIGNUP_MODE=open). */
function SelfServeLinks() {
  const { t } = useI18n();
  const settings = useAsync((signal) => getSelfServe(signal), []);
  const open = settings.status === 'ready' && settings.data.sign_up === 'open';
  return (
    <p class="self-serve-links">
      <a href={paths.forgot}>{t('signin.forgot')}</a>
      {open ? <a href={paths.signUp}>{t('signin.sign_up')}</a> : null}
    </p>
  );
}
