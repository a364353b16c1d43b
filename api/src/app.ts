import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Catalogue } from '../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { ReadinessCheck } from '../../shared/src/health/readiness.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { registerAdmission } from './admission/admit-request.ts';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/error-handler.ts';
import { registerFieldValidation } from './plugins/field-validation.ts';
import { generateRequestId, registerRequestContext } from './plugins/request-context.ts';
import { createValidatorCompiler } from './plugins/validation.ts';
import { adminAccountsRoutes } from './routes/admin/accounts.route.ts';
import { adminKeysRoutes } from './routes/admin/keys.route.ts';
import { walletRoutes } from './routes/admin/wallet.route.ts';
import { balanceRoutes } from './routes/balance.route.ts';
import { chatCompletionsRoutes } from './routes/chat-completions.route.ts';
import { embeddingsRoutes } from './routes/embeddings.route.ts';
import { healthRoutes } from './routes/health.route.ts';
import { imagesRoutes } from './routes/images.route.ts';
import { modelsRoutes } from './routes/models.route.ts';
import { speechRoutes } from './routes/speech.route.ts';
import { transcriptionsRoutes } from './routes/transcriptions.route.ts';
import { usageRoutes } from './routes/usage.route.ts';
import { videosRoutes } from './routes/videos.route.ts';
import type { ApiServices } from './services.ts';

/** Everything the HTTP tier needs, built by `main` (or by a test) and passed in explicitly. */
export interface AppDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly catalogue: Catalogue;
  readonly readinessChecks: readonly ReadinessCheck[];
  readonly services: Pick<ApiServices, 'accounts' | 'billing' | 'upstream' | 'media'>;
}

/** Response headers a browser client may read (rate limits, request id). */
export const EXPOSED_HEADERS = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after'];

/** Builds the Fastify app; it never listens (that is `main`'s job, or `inject` in tests). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is a FastifyBaseLogger; the cast keeps Fastify's instance type the default one.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One line per finished request is written by the request-context plugin instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: generateRequestId,
    // JSON bodies (transcription uploads have their own 50 MB limit, enforced while streaming).
    bodyLimit: deps.config.maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    // Client IP (allowed-IP check): the socket's, unless it is a proxy we were told to trust.
    trustProxy: deps.config.trustProxy.length > 0 ? [...deps.config.trustProxy] : false,
    frameworkErrors: frameworkErrorHandler,
  });

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandling(app);
  registerRequestContext(app);
  await app.register(cors, { origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });

  await app.register(healthRoutes, { ...deps, readinessTimeoutMs: deps.config.readinessTimeoutMs });
  await app.register(modelsRoutes, deps);
  await app.register(adminRoutes, { prefix: '/admin/v1', ...deps });
  await app.register(authenticatedRoutes, deps);
  return app;
}

/** The operator API: accounts, keys and wallets (guarded by `ADMIN_TOKEN` inside each plugin). */
async function adminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { accounts, billing } = deps.services;
  const adminToken = deps.config.adminToken;
  await app.register(adminAccountsRoutes, {
    ...accounts,
    adminToken,
    balanceOf: (id) => billing.balanceOf(id),
  });
  await app.register(adminKeysRoutes, { ...accounts, adminToken });
  const accountExists = async (id: string) => (await accounts.accounts.findById(id)) !== null;
  await app.register(walletRoutes, { billing, adminToken, accountExists });
}

/** Every route that needs a key: admitted (checks 1 to 7, rate limit, hold) before its handler. */
async function authenticatedRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { accounts, billing } = deps.services;
  registerAdmission(app, {
    keyCache: accounts.keyCache,
    billing,
    catalogue: deps.catalogue,
    now: accounts.clock,
  });
  await app.register(balanceRoutes, { billing });
  await app.register(usageRoutes, { billing });
  const chat = { config: deps.config, client: deps.services.upstream, billing, now: accounts.clock };
  await app.register(chatCompletionsRoutes, { catalogue: deps.catalogue, chat });
  await app.register(embeddingsRoutes, { catalogue: deps.catalogue, chat });
  await app.register(mediaRoutes, deps);
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
