import type { ModelRoute } from '../../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { SIMULATOR_BASE_URL, simulateNative } from '../../../shared/src/native/simulator/native-simulator.ts';
import { isProviderId, type ProviderId } from '../../../shared/src/providers/provider-ids.ts';
import type { ForwardRequest, UpstreamResponse } from '../../../shared/src/upstream/upstream-client.ts';

/** One upstream route a native request can be sent on: the provider's address and credential. */
export interface NativeTarget {
  readonly route: ModelRoute;
  /** The provider's configured base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Present on a `demo` route: answers in the process instead of an HTTP call (the native simulator). */
  readonly simulate?: (request: ForwardRequest) => Promise<UpstreamResponse>;
}

type Providers = Pick<Config, 'providers' | 'simulateProviders'>;

/**
 * Whether `provider`'s native API is served: the gateway holds a credential for it, or
 * `SIMULATE_PROVIDERS` has the offline simulator answer for every provider without one.
 */
export function isProviderEnabled(config: Providers, provider: string): boolean {
  return config.simulateProviders || upstreamOf(config, provider)?.apiKey !== undefined;
}

/**
 * The routes of a model through its native API's provider that can be called now (the provider
 * has an API key; a `demo` route always, answered by the native simulator), in catalogue
 * (fallback) order.
 */
export function nativeTargets(config: Providers, routes: readonly ModelRoute[]): NativeTarget[] {
  return routes.flatMap((route) => {
    if (route.provider === 'demo') {
      return [{ route, baseUrl: SIMULATOR_BASE_URL, apiKey: 'demo', simulate: simulateNative }];
    }
    const upstream = upstreamOf(config, route.provider);
    if (upstream?.apiKey === undefined) return [];
    return [{ route, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey }];
  });
}

function upstreamOf(config: Providers, provider: string) {
  if (!isProviderId(provider) || provider === 'demo') return undefined;
  return config.providers[provider as Exclude<ProviderId, 'demo'>];
}
