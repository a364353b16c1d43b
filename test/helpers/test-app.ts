import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/src/app.ts';
import { type ApiServices, createApiServices } from '../../api/src/services.ts';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { ReadinessCheck } from '../../shared/src/health/readiness.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import { type Connections, closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { captureLogger } from './capture-logger.ts';
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
}

/** The api as `main` wires it, on the test stores (own database, bucket and queue prefix). */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.env);
  const connections = await openConnections(config, 'api-test');
  const captured = captureLogger();
  const logger = options.logger ?? captured.logger;
  const services = await createApiServices(config, connections, logger);
  const app = await buildApp({
    config,
    logger,
    catalogue: loadConfiguredCatalogue(config),
    readinessChecks: options.readinessChecks?.(connections.readinessChecks) ?? connections.readinessChecks,
    services,
  });
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
      await dropTestDatabase(connections);
      await closeConnections(connections);
    },
  };
}

/**
 * Drops the test file's database on a real MongoDB. jongodb supports neither dropDatabase nor
 * listCollections; there the database lives in memory and goes with the test stack.
 */
async function dropTestDatabase(connections: Connections): Promise<void> {
  await connections.mongo.db.dropDatabase().catch(() => undefined);
}
