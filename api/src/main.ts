// First: V8 settings that must hold before the rest of the process is loaded.
import './gc-settings.ts';
import { loadConfiguredCatalogue, servedCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { loadConfig } from '../../shared/src/config/config.ts';
import { createLogger } from '../../shared/src/logging/logger.ts';
import { startProcessObservability } from '../../shared/src/observability/process-observability.ts';
import { closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { closeOnSignals, exitOnStartupFailure } from '../../shared/src/runtime/shutdown.ts';
import { installSecretScrubber } from '../../shared/src/upstream/secret-scrubber.ts';
import { buildApp } from './app.ts';
import { createApiServices } from './services.ts';

/** The api process: configuration and catalogue checked before any port opens, then wired and listening. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // Before anything logs: the configured credentials are scrubbed from every line from here on.
  installSecretScrubber(config);
  // The file checked before any connection opens; served as the channels configure it below.
  loadConfiguredCatalogue(config);
  const logger = createLogger({ name: 'api', level: config.logLevel });
  // Before the app is built: its hooks trace only when traces are exported.
  const observability = await startProcessObservability(config, 'api', logger);
  // S3 on first use: an api that serves no media never loads the SDK.
  const connections = await openConnections(config, 'api', logger, { s3: 'on-first-use' });
  const services = await createApiServices(config, connections, logger);
  const catalogue = servedCatalogue(config, services.channels.providers);
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
    await observability.close();
  });
  const address = await app.listen({ host: config.host, port: config.port });
  const served = catalogue.list().filter((model) => model.enabled).length;
  logger.info({ address, models: served }, 'api listening');
  // Models whose providers have no API key are not served; a default media model may be one of them.
  const { defaultImageModel, defaultTtsModel, defaultSttModel } = config.media;
  for (const id of [defaultImageModel, defaultTtsModel, defaultSttModel]) {
    if (catalogue.get(id)?.enabled !== true)
      logger.warn(
        { model: id },
        'default media model unavailable: no configured provider (requests naming no model answer 404)',
      );
  }
}

main().catch((err: unknown) => exitOnStartupFailure('api', err));
