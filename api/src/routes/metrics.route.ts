import type { FastifyInstance } from 'fastify';
import { metricsAccess, metricsTokenRequired } from '../../../shared/src/observability/metrics-access.ts';
import { METRICS_CONTENT_TYPE, metricsText } from '../../../shared/src/observability/registry.ts';

export interface MetricsRouteDeps {
  /** `METRICS_TOKEN`; the route is registered only when one is configured. */
  readonly token: string;
}

/**
 * `GET /metrics` on the api's own port: the Prometheus text of this process, for a bearer of
 * `METRICS_TOKEN` (401 otherwise). Kept out of the OpenAPI document: it is the operator's, not the API's.
 */
export async function metricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): Promise<void> {
  const allowed = metricsAccess(deps.token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!allowed(request.headers.authorization)) throw metricsTokenRequired();
    return reply.header('content-type', METRICS_CONTENT_TYPE).send(await metricsText());
  });
}
