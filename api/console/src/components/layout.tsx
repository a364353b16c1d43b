import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { type MessageKey, useI18n } from '../i18n/i18n.tsx';
import { BASE, paths } from '../paths.ts';
import { useSession } from '../session.tsx';

const HOLDER_NAV: readonly (readonly [string, MessageKey])[] = [
  [paths.overview, 'nav.overview'],
  [paths.keys, 'nav.keys'],
  [paths.usage, 'nav.usage'],
  [paths.requests, 'nav.requests'],
  [paths.wallet, 'nav.wallet'],
  [paths.models, 'nav.models'],
  [paths.playground, 'nav.playground'],
  [paths.media, 'nav.media'],
  [paths.account, 'nav.account'],
];

const OPERATOR_NAV: readonly (readonly [string, MessageKey])[] = [
  [paths.operatorAccounts, 'nav.accounts'],
  [paths.operatorRequests, 'nav.requests'],
  [paths.operatorChannels, 'nav.channels'],
  [paths.operatorQueues, 'nav.queues'],
  [paths.operatorVouchers, 'nav.vouchers'],
  [paths.operatorCatalogue, 'nav.catalogue'],
  [paths.models, 'nav.models'],
];

const SIGNED_OUT_NAV: readonly (readonly [string, MessageKey])[] = [
  [paths.signIn, 'nav.sign_in'],
  [paths.models, 'nav.models'],
];

export function Layout({ children }: { children: ComponentChildren }) {
  const { t, locale, setLocale } = useI18n();
  const { state, signOut } = useSession();
  const { path, route } = useLocation();
  const session = state.status === 'signed-in' ? state.session : undefined;
  const nav =
    session === undefined ? SIGNED_OUT_NAV : session.role === 'operator' ? OPERATOR_NAV : HOLDER_NAV;
  const other = locale === 'fa' ? 'en' : 'fa';
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {t('nav.skip')}
      </a>
      <header class="topbar">
        <a class="brand" href={`${BASE}/`}>
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>
          {t('app.name')}
        </a>
        <div class="topbar-end">
          {session ? (
            <span class="who" title={session.account?.email}>
              {session.role === 'operator' ? t('nav.operator') : (session.account?.email ?? '')}
            </span>
          ) : null}
          <button
            type="button"
            class="button button-small"
            lang={other}
            onClick={() => setLocale(other)}
            data-testid="language-switch"
          >
            {t('nav.switch_language')}
          </button>
          {session ? (
            <button
              type="button"
              class="button button-small"
              onClick={async () => {
                await signOut().catch(() => undefined);
                route(paths.signIn);
              }}
            >
              {t('nav.sign_out')}
            </button>
          ) : null}
        </div>
      </header>
      {state.status !== 'checking' ? (
        <nav class="mainnav" aria-label={t('nav.label')}>
          <ul>
            {nav.map(([href, label]) => {
              const current = path === href || path.startsWith(`${href}/`);
              return (
                <li key={href}>
                  <a href={href} aria-current={current ? 'page' : undefined}>
                    {t(label)}
                  </a>
                </li>
              );
            })}
          </ul>
        </nav>
      ) : null}
      {state.status === 'signed-out' && state.expired ? (
        <p class="banner" role="status">
          {t('session.expired')}
        </p>
      ) : null}
      <main id="main" class="content">
        {children}
      </main>
    </div>
  );
}
