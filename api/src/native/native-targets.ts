import type { ModelRoute } from '../../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { isProviderId, type ProviderId } from '../../../shared/src/providers/provider-ids.ts';

/** One upstream route a native request can be sent on: the provider's address and credential. */
export interface NativeTarget {
  readonly route: ModelRoute;
  /** The provider's configured base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
}

type Providers = Pick<Config, 'providers'>;

/** Whether the gateway holds a credential for `provider`, so that its native API can be served. */
export function isProviderEnabled(config: Providers, provider: string): boolean {
  return upstreamOf(config, provider)?.apiKey !== undefined;
}

/**
 * The routes of a model through its native API's provider that can be called now (the provider
 * has an API key), in catalogue (fallback) order.
 */
export function nativeTargets(config: Providers, routes: readonly ModelRoute[]): NativeTarget[] {
  return routes.flatMap((route) => {
    const upstream = upstreamOf(config, route.provider);
    if (upstream?.apiKey === undefined) return [];
    return [{ route, baseUrl: upstream.baseUrl, apiKey: upstream.apiKey }];
  });
}

function upstreamOf(config: Providers, provider: string) {
  if (!isProviderId(provider) || provider === 'demo') return undefined;
  return config.providers[provider as Exclude<ProviderId, 'demo'>];
}
