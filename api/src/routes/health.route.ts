import type { FastifyInstance } from 'fastify';
import { checkReadiness, type ReadinessCheck } from '../../../shared/src/health/readiness.ts';

export interface HealthRouteDeps {
  readonly readinessChecks: readonly ReadinessCheck[];
  readonly readinessTimeoutMs: number;
}

const readinessSchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'unavailable'] } },
  },
} as const;

/** `/healthz`: the process is alive. `/readyz`: every dependency answers (503 names those that do not). */
export async function healthRoutes(app: FastifyInstance, deps: HealthRouteDeps): Promise<void> {
  app.get(
    '/healthz',
    { schema: { response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    { schema: { response: { 200: readinessSchema, 503: readinessSchema } } },
    async (request, reply) => {
      const report = await checkReadiness(deps.readinessChecks, deps.readinessTimeoutMs);
      if (!report.ready) request.log.warn({ reasons: report.reasons }, 'not ready');
      return reply
        .code(report.ready ? 200 : 503)
        .send({ status: report.ready ? 'ready' : 'unavailable', checks: report.checks });
    },
  );
}
