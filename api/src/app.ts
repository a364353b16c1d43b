import cors from '@fastify/cors';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { inFlightGraceMs } from '../../shared/src/runtime/shutdown.ts';
import { registerAdmission } from './admission/admit-request.ts';
import type { AppDeps } from './app-deps.ts';
import { channelAdminOf } from './channels/channel-admin-of.ts';
import { nativeApiRoutes, registerNativeFallbacks } from './native/native-apis.ts';
import { registerOpenApi } from './openapi/lazy-docs.ts';
import { registerBodyReadDeadline } from './plugins/body-read-deadline.ts';
import {
  CONNECTIONS_CHECK_MS,
  clientErrorHandler,
  registerProtocolAnswers,
  registerRequestGate,
} from './plugins/client-errors.ts';
import { consoleStatic } from './plugins/console-static.ts';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/error-handler.ts';
import { registerFieldValidation } from './plugins/field-validation.ts';
import { registerGracefulStop } from './plugins/graceful-stop.ts';
import { registerObservability } from './plugins/observability.ts';
import { generateRequestId, registerRequestContext } from './plugins/request-context.ts';
import { requestLoggerFactory } from './plugins/request-logger.ts';
import { createValidatorCompiler } from './plugins/validation.ts';
import { adminAccountsRoutes } from './routes/admin/accounts.route.ts';
import { adminCatalogueRoutes } from './routes/admin/catalogue.route.ts';
import { adminChannelsRoutes } from './routes/admin/channels.route.ts';
import { adminInvitationsRoutes } from './routes/admin/invitations.route.ts';
import { adminKeysRoutes } from './routes/admin/keys.route.ts';
import { adminRequestsRoutes } from './routes/admin/requests.route.ts';
import { adminVouchersRoutes } from './routes/admin/vouchers.route.ts';
import { walletRoutes } from './routes/admin/wallet.route.ts';
import { balanceRoutes } from './routes/balance.route.ts';
import { chatCompletionsRoutes } from './routes/chat-completions.route.ts';
import { consoleApiRoutes } from './routes/console/console.route.ts';
import { CONSOLE_API_PREFIX } from './routes/console/console-deps.ts';
import { embeddingsRoutes } from './routes/embeddings.route.ts';
import { healthRoutes } from './routes/health.route.ts';
import { imagesRoutes } from './routes/images.route.ts';
import { metricsRoutes } from './routes/metrics.route.ts';
import { modelsRoutes } from './routes/models.route.ts';
import { paymentsCallbackRoutes } from './routes/payments-callback.route.ts';
import { requestsRoutes } from './routes/requests.route.ts';
import { speechRoutes } from './routes/speech.route.ts';
import { transcriptionsRoutes } from './routes/transcriptions.route.ts';
import { usageRoutes } from './routes/usage.route.ts';
import { videosRoutes } from './routes/videos.route.ts';
import { registerJsonBodyParser } from './schemas/json-body.ts';

/** Response headers a browser client may read (rate limits, request id). */
export const EXPOSED_HEADERS = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after'];

/**
 * CORS: the public API (`/v1`) answers browsers of any origin; everything else, the operator API
 * (`/admin/v1`, bearer-token, meant for servers and the operator's tools) first, sends no CORS
 * headers at all, so a page of another origin can neither preflight nor read it (a preflight there
 * answers 404). A preflight to `/v1` without `Origin` is answered like any other (no text/plain 400
 * outside the spec's error format).
 */
const PUBLIC_CORS = { origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600, strictPreflight: false };
const NO_CORS = { origin: false };
function corsFor(request: FastifyRequest, callback: (error: Error | null, options: object) => void): void {
  const url = request.url;
  const publicApi = url.startsWith('/v1/') || url === '/v1' || url.startsWith('/v1?');
  callback(null, publicApi ? PUBLIC_CORS : NO_CORS);
}

/** Builds the Fastify app; it never listens (that is `main`'s job, or `inject` in tests). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps Fastify's instance type the default one.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One line per finished request is written by the request-context plugin instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // Each request's child logger is made only when the request writes a line (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    genReqId: generateRequestId,
    // JSON bodies (transcription uploads have their own 50 MB limit, enforced while streaming).
    bodyLimit: deps.config.maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true },
    // Answered in the spec's format by the request gate instead (client-errors.ts).
    return503OnClosing: false,
    // Node's parser errors (bad methods, URLs, headers; header overflow) in the spec's format.
    clientErrorHandler,
    // A missing Host is refused by the request gate in the spec's format (Node's own answer is empty).
    // A head that never completes is answered 408 after HEADERS_TIMEOUT_MS (Node's own default
    // is 60 s, looked at every 30 s); bodies have their own deadline (BODY_READ_TIMEOUT_MS).
    http: {
      requireHostHeader: false,
      headersTimeout: deps.config.headersTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    },
    // Client IP (allowed-IP check): the socket's, unless it is a proxy we were told to trust.
    trustProxy: deps.config.trustProxy.length > 0 ? [...deps.config.trustProxy] : false,
    frameworkErrors: frameworkErrorHandler,
  });

  app.setValidatorCompiler(createValidatorCompiler());
  // Before any plugin: every JSON body of every route is depth-bounded (400 above the bound).
  registerJsonBodyParser(app);
  registerErrorHandling(app);
  // What is still in flight when `close` is called ends before the stop budget runs out.
  registerGracefulStop(app, { graceMs: inFlightGraceMs(deps.config.shutdownTimeoutMs) });
  // --- error envelope, body deadline and CORS (client-errors.ts, body-read-deadline.ts) ---
  registerRequestGate(app);
  registerProtocolAnswers(app);
  registerBodyReadDeadline(app, { timeoutMs: deps.config.bodyReadTimeoutMs });
  registerRequestContext(app);
  // Request metrics and traces (plugins/observability.ts): before any route, CORS's own included.
  registerObservability(app);
  await app.register(cors, { delegator: corsFor, hideOptionsRoute: true });
  // --- end of the error envelope block ---

  // --- OpenAPI document at /openapi.json, its page at /docs (openapi/, docs/api.md): before the routes ---
  await registerOpenApi(app);
  await app.register(healthRoutes, { ...deps, readinessTimeoutMs: deps.config.readinessTimeoutMs });
  // --- Prometheus metrics at /metrics for METRICS_TOKEN bearers; unset: 404 (docs/observability.md) ---
  const metricsToken = deps.config.metrics.token;
  if (metricsToken !== undefined) await app.register(metricsRoutes, { token: metricsToken });
  await app.register(modelsRoutes, deps);
  await app.register(adminRoutes, { prefix: '/admin/v1', ...deps });
  await app.register(authenticatedRoutes, deps);
  registerNativeFallbacks(app, { config: deps.config, channels: deps.services.channels.routing });
  // --- web console API: sessions and JSON endpoints under /console/api (routes/console/) ---
  await app.register(consoleApiRoutes, { prefix: CONSOLE_API_PREFIX, ...deps });
  // --- the payment gateway's callback (no session; 303 to the console's wallet, docs/payments.md) ---
  await app.register(paymentsCallbackRoutes, {
    settlement: deps.services.selfServe.settlement,
    publicBaseUrl: deps.config.publicBaseUrl,
  });
  // --- web console SPA: /console/* pages and assets, GET / → /console/ (plugins/console-static.ts) ---
  await app.register(consoleStatic);
  return app;
}

/** The operator API: accounts, keys and wallets (guarded by `ADMIN_TOKEN` inside each plugin). */
async function adminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { accounts, billing } = deps.services;
  // Wrong tokens count per client IP with the console's operator sign-in, which takes the same token.
  const auth = { adminToken: deps.config.adminToken, tokenLimiter: deps.services.console.limiter };
  const { catalogueAdmin } = deps.services;
  await app.register(adminAccountsRoutes, {
    ...accounts,
    ...auth,
    balanceOf: (id) => billing.balanceOf(id),
    pricePlans: {
      multiplierOf: (id) => catalogueAdmin.snapshot().priceMultiplierOf(id),
      setMultiplier: (id, multiplier) => catalogueAdmin.setPriceMultiplier(id, multiplier, 'admin-api'),
    },
  });
  await app.register(adminCatalogueRoutes, { catalogueAdmin, ...auth });
  await app.register(adminKeysRoutes, { ...accounts, ...auth });
  const invitations = { ...accounts, credentials: deps.services.console.credentials };
  await app.register(adminInvitationsRoutes, {
    ...invitations,
    ...auth,
    publicBaseUrl: deps.config.publicBaseUrl,
  });
  const accountExists = async (id: string) => (await accounts.accounts.findById(id)) !== null;
  await app.register(walletRoutes, { billing, ...auth, accountExists });
  const { selfServe } = deps.services;
  await app.register(adminVouchersRoutes, {
    ...auth,
    vouchers: selfServe.vouchers,
    payments: selfServe.payments,
    accounts: accounts.accounts,
    clock: accounts.clock,
  });
  await app.register(adminRequestsRoutes, { requestLog: deps.services.requestLog, ...auth });
  const models = () => deps.catalogue.list();
  await app.register(adminChannelsRoutes, { ...auth, channels: channelAdminOf(deps), models });
}

/**
 * Every route that needs a key: authenticated (checks 1–3) before its body is validated, then
 * admitted (checks 4–7, rate limit, hold) from the validated request, before its handler.
 */
async function authenticatedRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { accounts, billing } = deps.services;
  registerAdmission(app, {
    keyCache: accounts.keyCache,
    billing,
    catalogue: deps.catalogue,
    catalogueFor: (accountId) => deps.services.catalogue.current().forAccount(accountId),
    now: accounts.clock,
    // REQUEST_LOG_ENABLED=false: no request is recorded (the log is still read).
    requestLog: deps.config.requestLog.enabled ? deps.services.requestLog : undefined,
  });
  await app.register(balanceRoutes, { billing });
  await app.register(usageRoutes, { billing });
  await app.register(requestsRoutes, { requestLog: deps.services.requestLog });
  const channels = deps.services.channels.routing;
  const chat = {
    config: deps.config,
    channels,
    client: deps.services.upstream,
    billing,
    now: accounts.clock,
  };
  await app.register(chatCompletionsRoutes, { catalogue: deps.catalogue, chat });
  await app.register(embeddingsRoutes, { catalogue: deps.catalogue, chat });
  await app.register(mediaRoutes, deps);
  // --- provider-native APIs under /anthropic, … (native/native-apis.ts, docs/native.md) ---
  await app.register(nativeApiRoutes, {
    config: deps.config,
    channels,
    catalogue: deps.catalogue,
    client: deps.services.upstream,
    billing,
  });
}

/** Images, speech, transcriptions (422 field validation) and videos, served through worker jobs. */
async function mediaRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { catalogue, config } = deps;
  const media = deps.services.media;
  registerFieldValidation(app);
  await app.register(imagesRoutes, { catalogue, media, defaultModel: config.media.defaultImageModel });
  await app.register(speechRoutes, { catalogue, media, defaultModel: config.media.defaultTtsModel });
  const admission = { billing: deps.services.billing };
  await app.register(transcriptionsRoutes, {
    catalogue,
    media,
    admission,
    defaultModel: config.media.defaultSttModel,
  });
  await app.register(videosRoutes, { catalogue, media, deadlineMs: config.media.videoDeadlineMs });
}
