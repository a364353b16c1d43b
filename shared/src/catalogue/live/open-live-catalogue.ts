import type { Config } from '../../config/config.ts';
import type { Logger } from '../../logging/logger.ts';
import { isRouteConfigured } from '../../providers/provider-registry.ts';
import { createRedis, type Redis } from '../../redis/redis.ts';
import type { Catalogue } from '../catalogue.ts';
import { checkDefaultMediaModels } from '../configured-catalogue.ts';
import { loadCatalogue } from '../load-catalogue.ts';
import type { ProviderAvailability } from './build-snapshot.ts';
import type { CatalogueOverridesRepository } from './catalogue-overrides.repository.ts';
import { catalogueChannel, createLiveCatalogue, type LiveCatalogue } from './live-catalogue.ts';

/** A live catalogue with the subscription connection it opened. */
export type OpenedLiveCatalogue = LiveCatalogue & { closeSubscriber(): void };

type CatalogueConfig = Pick<
  Config,
  'catalogue' | 'compatibleUpstreams' | 'media' | 'providers' | 'simulateProviders' | 'redis' | 'queues'
>;

/** Which providers have an enabled channel now, and a call on each change (`ProcessChannels.providers`). */
export interface ChannelProviders {
  isConfigured(provider: string): boolean;
  onChange(listener: () => void): void;
}

/**
 * The one place a process's live catalogue is wired: the catalogue file (checked at start, as
 * before), the store's overrides, and which providers are available: those with an enabled
 * channel (`demo` always). Each change of the channels rebuilds the snapshot, so adding or
 * removing a provider's channels serves or withdraws its models on every process within 2 s.
 */
export async function openLiveCatalogue(
  config: CatalogueConfig,
  overrides: CatalogueOverridesRepository,
  redis: Redis,
  providers: ChannelProviders,
  logger: Logger,
): Promise<OpenedLiveCatalogue> {
  const base = loadBaseCatalogue(config);
  const subscriber = createRedis(config.redis, { connectionName: 'catalogue' });
  const live = await createLiveCatalogue({
    base,
    overrides,
    availability: channelAvailability(config, providers),
    redis,
    subscriber,
    channel: catalogueChannel(config.queues.prefix),
    logger,
  });
  providers.onChange(() => live.rebuild());
  // At start every unavailable default is logged; after a change, those it made unavailable.
  let reported = warnOfUnavailableDefaults(live, config, logger, new Set());
  live.onChange(() => {
    reported = warnOfUnavailableDefaults(live, config, logger, reported);
  });
  return Object.assign(live, {
    closeSubscriber: () => subscriber.disconnect(),
  });
}

/** The catalogue file with its default media models checked (a problem stops the process). */
export function loadBaseCatalogue(config: CatalogueConfig): Catalogue {
  const base = loadCatalogue(config.catalogue.path, {
    extraProviders: Object.keys(config.compatibleUpstreams),
  });
  checkDefaultMediaModels(base, config);
  return base;
}

/** Available: a route of `demo`, or of a provider with an enabled channel. */
function channelAvailability(
  config: Pick<Config, 'simulateProviders'>,
  providers: Pick<ChannelProviders, 'isConfigured'>,
): ProviderAvailability {
  return {
    isRouteConfigured: (route) => isRouteConfigured(route, providers),
    simulateProviders: config.simulateProviders,
  };
}

/** The default media models the snapshot does not serve (disabled by the operator, or no provider). */
export function unavailableDefaultModels(
  catalogue: Pick<Catalogue, 'get'>,
  config: Pick<Config, 'media'>,
): { variable: string; model: string }[] {
  const { defaultImageModel, defaultTtsModel, defaultSttModel } = config.media;
  return (
    [
      ['DEFAULT_IMAGE_MODEL', defaultImageModel],
      ['DEFAULT_TTS_MODEL', defaultTtsModel],
      ['DEFAULT_STT_MODEL', defaultSttModel],
    ] as const
  )
    .filter(([, id]) => catalogue.get(id)?.enabled !== true)
    .map(([variable, model]) => ({ variable, model }));
}

function warnOfUnavailableDefaults(
  live: LiveCatalogue,
  config: CatalogueConfig,
  logger: Logger,
  already: ReadonlySet<string>,
): Set<string> {
  const now = new Set<string>();
  for (const { variable, model } of unavailableDefaultModels(live.current(), config)) {
    now.add(variable);
    if (already.has(variable)) continue;
    logger.warn(
      { model, variable },
      'default media model unavailable: disabled or no configured provider (requests naming no model answer 404)',
    );
  }
  return now;
}
