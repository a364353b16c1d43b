import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { loadConfig } from '../../shared/src/config/config.ts';
import { createLogger } from '../../shared/src/logging/logger.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { closeOnSignals, exitOnStartupFailure } from '../../shared/src/runtime/shutdown.ts';
import { buildApp } from './app.ts';
import { createApiServices } from './services.ts';

/** The api process: configuration and catalogue checked before any port opens, then wired and listening. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const catalogue = loadConfiguredCatalogue(config);
  const logger = createLogger({ name: 'api', level: config.logLevel });
  const connections = await openConnections(config, 'api');
  const services = await createApiServices(config, connections, logger);
  const app = await buildApp({
    config,
    logger,
    catalogue,
    readinessChecks: connections.readinessChecks,
    services,
  });
  closeOnSignals(logger, config.shutdownTimeoutMs, async () => {
    await app.close(); // stops accepting, waits for in-flight requests and streams
    await services.close();
    await closeConnections(connections);
  });
  const address = await app.listen({ host: config.host, port: config.port });
  logger.info({ address, models: catalogue.list().length }, 'api listening');
}

main().catch((err: unknown) => exitOnStartupFailure('api', err));
