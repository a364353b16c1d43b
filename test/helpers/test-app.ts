import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/src/app.ts';
import { type ApiServices, type ApiServicesOverrides, createApiServices } from '../../api/src/services.ts';
import { servedCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { ReadinessCheck } from '../../shared/src/health/readiness.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { type Connections, closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { captureLogger } from './capture-logger.ts';
import { buildWatched } from './openapi-conformance.ts';
import { testConfig } from './test-config.ts';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly connections: Connections;
  readonly services: ApiServices;
  readonly logs: () => Record<string, unknown>[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly env?: Record<string, string | undefined>;
  /** Replaces the real readiness checks (for example with one whose store is stopped). */
  readonly readinessChecks?: (real: readonly ReadinessCheck[]) => readonly ReadinessCheck[];
  readonly logger?: Logger;
  /** Replaces parts of the services' wiring (e.g. a cheaper console password hasher). */
  readonly services?: ApiServicesOverrides;
}

/** The api as `main` wires it, on the test stores (own database, bucket and queue prefix). */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const captured = captureLogger();
  const logger = options.logger ?? captured.logger;
  const connections = await openConnections(config, 'api-test', logger, { s3: 'on-first-use' });
  const services = await createApiServices(config, connections, logger, options.services);
  // Every answer is checked against the OpenAPI document; `close()` fails on any mismatch.
  const { app, watch } = await buildWatched(() =>
    buildApp({
      config,
      logger,
      catalogue: servedCatalogue(config, services.channels.providers),
      readinessChecks: options.readinessChecks?.(connections.readinessChecks) ?? connections.readinessChecks,
      services,
    }),
  );
  await app.ready();
  return {
    app,
    config,
    connections,
    services,
    logs: captured.lines,
    async close() {
      await app.close();
      await services.close();
      await closeConnections(connections);
      watch.assertConforming();
    },
  };
}
