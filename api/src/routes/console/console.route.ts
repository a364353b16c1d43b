import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.ts';
import { channelAdminOf } from '../../channels/channel-admin-of.ts';
import { verifySignUp } from '../../use-cases/self-serve/verify-sign-up.ts';
import { operatorAccountsRoutes } from './accounts.route.ts';
import { catalogueRoutes } from './catalogue.route.ts';
import { operatorChannelsRoutes } from './channels.route.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { keysRoutes } from './keys.route.ts';
import { modelsRoutes } from './models.route.ts';
import { overviewRoutes } from './overview.route.ts';
import { playgroundRoutes } from './playground.route.ts';
import { queuesRoutes } from './queues.route.ts';
import { holderRequestsRoutes, operatorRequestsRoutes } from './requests.route.ts';
import { holderPaymentsRoutes, operatorSelfServeRoutes, signUpRoutes } from './self-serve.route.ts';
import { currentSessionRoutes, holderSessionRoutes, signInRoutes } from './session.route.ts';
import { usageRoutes } from './usage.route.ts';
import { videosRoutes } from './videos.route.ts';

/**
 * The web console's JSON endpoints (docs/console.md), registered under `/console/api`. Each plugin
 * below guards its routes for one audience (anyone, signed in, holder, operator); sessions come
 * from the `gw_session` cookie. Responses are for the console's own page only: no CORS headers,
 * so no other origin can read them, whatever the API's CORS policy.
 */
export async function consoleApiRoutes(app: FastifyInstance, appDeps: AppDeps): Promise<void> {
  const { services } = appDeps;
  const deps: ConsoleDeps = {
    config: appDeps.config,
    catalogue: appDeps.catalogue,
    catalogueAdmin: services.catalogueAdmin,
    accounts: services.accounts,
    billing: services.billing,
    media: services.media,
    console: services.console,
    selfServe: services.selfServe,
  };
  await app.register(cookie);
  // @fastify/cors reads `config.cors` per route (false: no CORS headers); its types do not declare it.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, cors: false } as typeof route.config;
  });
  const sessionDeps = {
    console: deps.console,
    accounts: deps.accounts.accounts,
    adminToken: deps.config.adminToken,
    clock: deps.accounts.clock,
    timeZone: deps.config.billing.timeZone,
    verifySignUpLink: (token: string, password: string, ip: string) =>
      verifySignUp(
        {
          ...deps.selfServe,
          ...deps.console,
          accounts: deps.accounts.accounts,
          clock: deps.accounts.clock,
        },
        { token, password, ip },
      ),
  };
  await app.register(signInRoutes, sessionDeps);
  await app.register(currentSessionRoutes, sessionDeps);
  await app.register(holderSessionRoutes, sessionDeps);
  await app.register(modelsRoutes, deps);
  await app.register(overviewRoutes, deps);
  await app.register(keysRoutes, deps);
  await app.register(usageRoutes, deps);
  await app.register(videosRoutes, deps);
  await app.register(playgroundRoutes, deps);
  await app.register(operatorAccountsRoutes, deps);
  await app.register(queuesRoutes, deps);
  await app.register(signUpRoutes, deps);
  await app.register(holderPaymentsRoutes, deps);
  await app.register(operatorSelfServeRoutes, deps);
  await app.register(catalogueRoutes, deps);
  const withLog = { ...deps, requestLog: services.requestLog };
  await app.register(holderRequestsRoutes, withLog);
  await app.register(operatorRequestsRoutes, withLog);
  await app.register(operatorChannelsRoutes, { ...deps, channelAdmin: channelAdminOf(appDeps) });
}
