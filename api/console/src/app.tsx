/** The console's shell: session, language, navigation and the routes under `/console/`. */
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { Layout } from './components/layout.tsx';
import { ErrorMessage, Loading } from './components/ui.tsx';
import { I18nProvider } from './i18n/i18n.tsx';
import { AccountPage } from './pages/account.tsx';
import { InvitePage } from './pages/invite.tsx';
import { KeysPage } from './pages/keys.tsx';
import { MediaPage } from './pages/media.tsx';
import { ModelsPage } from './pages/models.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { AccountDetailPage } from './pages/operator/account-detail.tsx';
import { AccountsPage } from './pages/operator/accounts.tsx';
import { CataloguePage } from './pages/operator/catalogue.tsx';
import { ChannelsPage } from './pages/operator/channels.tsx';
import { QueuesPage } from './pages/operator/queues.tsx';
import { VouchersPage } from './pages/operator/vouchers.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { OperatorRequestsPage, RequestsPage } from './pages/requests.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { CheckMailPage, ForgotPage, SignUpPage, VerifyPage } from './pages/sign-up.tsx';
import { UsagePage } from './pages/usage.tsx';
import { WalletPage } from './pages/wallet.tsx';
import { BASE, homeOf, paths } from './paths.ts';
import { SessionProvider, useSession } from './session.tsx';

export function App() {
  return (
    <I18nProvider>
      <SessionProvider>
        <LocationProvider scope={BASE}>
          <Layout>
            <Routes />
          </Layout>
        </LocationProvider>
      </SessionProvider>
    </I18nProvider>
  );
}

function Routes() {
  return (
    <Router onRouteChange={focusPageTitle}>
      <Route path={`${BASE}/`} component={Home} />
      <Route path={paths.signIn} component={SignInPage} />
      <Route path={paths.signUp} component={SignUpPage} />
      <Route path={paths.checkMail} component={CheckMailPage} />
      <Route path={paths.verify} component={VerifyPage} />
      <Route path={paths.forgot} component={ForgotPage} />
      <Route path={paths.invite} component={InvitePage} />
      <Route path={paths.reset} component={InvitePage} />
      <Route path={paths.models} component={ModelsPage} />
      <Route path={paths.overview} component={HolderOverviewPage} />
      <Route path={paths.keys} component={HolderKeysPage} />
      <Route path={paths.usage} component={HolderUsagePage} />
      <Route path={paths.wallet} component={HolderWalletPage} />
      <Route path={paths.playground} component={HolderPlaygroundPage} />
      <Route path={paths.media} component={HolderMediaPage} />
      <Route path={paths.account} component={HolderAccountPage} />
      <Route path={paths.requests} component={HolderRequestsPage} />
      <Route path={paths.operatorRequests} component={OperatorAllRequestsPage} />
      <Route path={paths.operatorAccounts} component={OperatorAccountsPage} />
      <Route path={`${paths.operatorAccounts}/:id`} component={OperatorAccountDetailPage} />
      <Route path={paths.operatorQueues} component={OperatorQueuesPage} />
      <Route path={paths.operatorVouchers} component={OperatorVouchersPage} />
      <Route path={paths.operatorCatalogue} component={OperatorCataloguePage} />
      <Route path={paths.operatorChannels} component={OperatorChannelsPage} />
      <Route default component={NotFoundPage} />
    </Router>
  );
}

/** After a client-side navigation, move focus to the new page's title (screen readers, keyboard). */
function focusPageTitle() {
  requestAnimationFrame(() => {
    const title = document.querySelector<HTMLElement>('[data-page-title]');
    if (title && document.activeElement?.tagName !== 'INPUT') title.focus({ preventScroll: true });
  });
}

/** `/console/`: the signed-in user's home page, or sign-in. */
function Home() {
  const { state } = useSession();
  const { route } = useLocation();
  useEffect(() => {
    if (state.status === 'signed-in') route(homeOf(state.session.role), true);
    if (state.status === 'signed-out') route(paths.signIn, true);
  }, [state, route]);
  if (state.status === 'error') return <ErrorMessage error={state.error} />;
  return <Loading />;
}

function guarded<P extends object>(role: 'holder' | 'operator', Page: ComponentType<P>) {
  return function Guarded(props: P) {
    const { state, recheck } = useSession();
    const { route, url } = useLocation();
    useEffect(() => {
      if (state.status === 'signed-out') route(`${paths.signIn}?next=${encodeURIComponent(url)}`, true);
      else if (state.status === 'signed-in' && state.session.role !== role)
        route(homeOf(state.session.role), true);
    }, [state, route, url]);
    if (state.status === 'error') return <ErrorMessage error={state.error} onRetry={recheck} />;
    if (state.status !== 'signed-in' || state.session.role !== role) return <Loading />;
    return <Page {...props} />;
  };
}

// Made once: a component made during render would remount its page on every render.
const HolderOverviewPage = guarded('holder', OverviewPage);
const HolderKeysPage = guarded('holder', KeysPage);
const HolderUsagePage = guarded('holder', UsagePage);
const HolderWalletPage = guarded('holder', WalletPage);
const HolderPlaygroundPage = guarded('holder', PlaygroundPage);
const HolderMediaPage = guarded('holder', MediaPage);
const HolderAccountPage = guarded('holder', AccountPage);
const OperatorAccountsPage = guarded('operator', AccountsPage);
const OperatorAccountDetailPage = guarded('operator', AccountDetailPage);
const OperatorQueuesPage = guarded('operator', QueuesPage);
const OperatorVouchersPage = guarded('operator', VouchersPage);
const OperatorCataloguePage = guarded('operator', CataloguePage);
const HolderRequestsPage = guarded('holder', RequestsPage);
const OperatorAllRequestsPage = guarded('operator', OperatorRequestsPage);
const OperatorChannelsPage = guarded('operator', ChannelsPage);
