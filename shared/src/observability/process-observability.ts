import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { startMetricsServer } from './metrics-server.ts';
import { startTracing } from './tracing.ts';

/** A process's observability outputs, once started; `close` flushes the traces and stops serving. */
export interface ProcessObservability {
  close(): Promise<void>;
}

/**
 * Starts what a process exports besides its own work, before anything is wired (hooks decide at
 * registration whether to trace): traces over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, as
 * service `gateway-<role>`, and the metrics-only server when `METRICS_PORT` is set.
 */
export async function startProcessObservability(
  config: Pick<Config, 'metrics' | 'tracing'>,
  role: 'api' | 'worker',
  logger: Logger,
): Promise<ProcessObservability> {
  const tracing = startTracing(config, `gateway-${role}`);
  if (tracing !== undefined) logger.info({ endpoint: config.tracing.otlpEndpoint }, 'exporting traces');
  const { port } = config.metrics;
  const server =
    port === undefined ? undefined : await startMetricsServer({ ...config.metrics, port }, logger);
  return {
    async close() {
      await server?.close();
      await tracing?.shutdown();
    },
  };
}
