import type { ChannelRouting } from '../channels/channel-router.ts';
import type { Config } from '../config/config.ts';
import { isRouteConfigured } from '../providers/provider-registry.ts';

/** Which providers the process may call: those with an enabled channel. */
export type ConfiguredProviders = Pick<ChannelRouting, 'isConfigured'>;

/** The providers of the `<PROVIDER>_API_KEY` variables alone (tools and tests that route nothing). */
export function environmentProviders(
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
): ConfiguredProviders {
  const configured = new Set(
    [...Object.entries(config.providers), ...Object.entries(config.compatibleUpstreams)]
      .filter(([, upstream]) => upstream.apiKey !== undefined)
      .map(([id]) => id),
  );
  return { isConfigured: (provider) => configured.has(provider) };
}

import { type Catalogue, type CatalogueModel, createCatalogue } from './catalogue.ts';
import { CatalogueError, loadCatalogue } from './load-catalogue.ts';

/**
 * The catalogue as a process uses it: the configured file, with the configured OpenAI-compatible
 * upstreams as known providers, and the configured default media models checked to exist with
 * the right type. Any problem stops the process at start.
 *
 * A model none of whose routes can be called (every route names a provider without an API key;
 * `demo` always counts as configured) is unavailable in the API: it is served as disabled, so it
 * is neither listed (`GET /v1/models`) nor found (`GET /v1/models/{id}`) nor callable (404
 * `model_not_found` on every endpoint), the same as a model disabled in the file. A model with at
 * least one configured route stays. A default media model may be unavailable this way (the
 * process still starts; a request naming no model then answers 404): only a default that is
 * missing from the file, disabled there, or of another type stops the process.
 *
 * With `SIMULATE_PROVIDERS` (the local stack turns it on), such a model is instead answered by the
 * offline `demo` simulator through one demo route, priced as the catalogue prices it: the whole
 * catalogue is listed and callable on a machine without any provider key, and no traffic leaves it.
 */
export function loadConfiguredCatalogue(
  config: Pick<Config, 'catalogue' | 'compatibleUpstreams' | 'media' | 'providers' | 'simulateProviders'>,
  providers: ConfiguredProviders = environmentProviders(config),
): Catalogue {
  const catalogue = loadCatalogue(config.catalogue.path, {
    extraProviders: Object.keys(config.compatibleUpstreams),
  });
  const defaults = [
    ['DEFAULT_IMAGE_MODEL', config.media.defaultImageModel, 'image'],
    ['DEFAULT_TTS_MODEL', config.media.defaultTtsModel, 'tts'],
    ['DEFAULT_STT_MODEL', config.media.defaultSttModel, 'stt'],
  ] as const;
  const problems = defaults.flatMap(([variable, id, type]) => {
    const model = catalogue.get(id);
    if (model === undefined) return [`${variable} names ${id}, which is not in the catalogue`];
    if (model.type !== type || !model.enabled)
      return [`${variable} names ${id}, which is not an enabled ${type} model`];
    return [];
  });
  if (problems.length > 0) throw new CatalogueError(config.catalogue.path ?? '(built-in)', problems);
  return withConfiguredProviders(catalogue, config, providers);
}

/** The catalogue with every model that has no configured route served as disabled, or simulated. */
export function withConfiguredProviders(
  catalogue: Catalogue,
  config: Pick<Config, 'simulateProviders'>,
  providers: ConfiguredProviders,
): Catalogue {
  const withoutRoute = config.simulateProviders ? simulated : unavailable;
  const models = catalogue
    .list()
    .map((model) => (model.enabled && !hasConfiguredRoute(model, providers) ? withoutRoute(model) : model));
  return createCatalogue(models, catalogue.exchangeRate);
}

/** Whether at least one of the model's routes names a provider the gateway may call. */
export function hasConfiguredRoute(
  model: Pick<CatalogueModel, 'routes'>,
  providers: ConfiguredProviders,
): boolean {
  return model.routes.some((route) => isRouteConfigured(route, providers));
}

function unavailable(model: CatalogueModel): CatalogueModel {
  return Object.freeze({ ...model, enabled: false });
}

/** The model answered by the demo simulator under its own native id (its price unchanged). */
function simulated(model: CatalogueModel): CatalogueModel {
  const nativeId = model.routes[0]?.native_id ?? model.id;
  return Object.freeze({
    ...model,
    routes: Object.freeze([Object.freeze({ provider: 'demo', native_id: nativeId })]),
  });
}

/**
 * A catalogue whose snapshot can be swapped: every holder of this object reads the current one.
 * Each snapshot is frozen; `replace` installs a new one whole.
 */
export class SwappableCatalogue implements Catalogue {
  #current: Catalogue;

  constructor(initial: Catalogue) {
    this.#current = initial;
  }

  get current(): Catalogue {
    return this.#current;
  }

  get exchangeRate(): Catalogue['exchangeRate'] {
    return this.#current.exchangeRate;
  }

  list(): readonly CatalogueModel[] {
    return this.#current.list();
  }

  get(id: string): CatalogueModel | undefined {
    return this.#current.get(id);
  }

  resolve(name: string): CatalogueModel | undefined {
    return this.#current.resolve(name);
  }

  replace(next: Catalogue): void {
    this.#current = next;
  }
}

/** What serving the catalogue by the channels needs: which providers are configured, and when that changes. */
export interface ChannelProviders extends ConfiguredProviders {
  onChange(listener: () => void): void;
}

/**
 * The catalogue as a process serves it while its channels change: the file checked once, each
 * model served, simulated or unavailable by whether its providers have an enabled channel now,
 * rebuilt whenever the channels change (within 2 s on every process).
 */
export function servedCatalogue(
  config: Pick<Config, 'catalogue' | 'compatibleUpstreams' | 'media' | 'providers' | 'simulateProviders'>,
  providers: ChannelProviders,
): SwappableCatalogue {
  const served = new SwappableCatalogue(loadConfiguredCatalogue(config, providers));
  providers.onChange(() => served.replace(loadConfiguredCatalogue(config, providers)));
  return served;
}
