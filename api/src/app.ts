import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Catalogue } from '../../shared/src/catalogue/catalogue.ts';
import type { ReadinessCheck } from '../../shared/src/health/readiness.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { frameworkErrorHandler, registerErrorHandling } from './plugins/error-handler.ts';
import { generateRequestId, registerRequestContext } from './plugins/request-context.ts';
import { createValidatorCompiler } from './plugins/validation.ts';
import { healthRoutes } from './routes/health.route.ts';
import { modelsRoutes } from './routes/models.route.ts';

/** Everything the HTTP tier needs, built by `main` (or by a test) and passed in explicitly. */
export interface AppDeps {
  readonly logger: Logger;
  readonly catalogue: Catalogue;
  readonly readinessChecks: readonly ReadinessCheck[];
  readonly readinessTimeoutMs: number;
  /** Largest accepted JSON body, in bytes. */
  readonly bodyLimitBytes?: number;
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
    bodyLimit: deps.bodyLimitBytes ?? 32 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    frameworkErrors: frameworkErrorHandler,
  });

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandling(app);
  registerRequestContext(app);
  await app.register(cors, { origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });

  await app.register(healthRoutes, deps);
  await app.register(modelsRoutes, deps);
  return app;
}
