import type { ModelRoute } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChannelAttempt, ChannelRouting } from '../../../shared/src/channels/channel-router.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { SIMULATOR_BASE_URL, simulateNative } from '../../../shared/src/native/simulator/native-simulator.ts';
import type { ForwardRequest, UpstreamResponse } from '../../../shared/src/upstream/upstream-client.ts';

/** One upstream route a native request can be sent on: the provider's address and credential. */
export interface NativeTarget {
  readonly route: ModelRoute;
  /** The channel's base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The channel it calls through (absent on a `demo` route). */
  readonly channel?: ChannelAttempt;
  /** Present on a `demo` route: answers in the process instead of an HTTP call (the native simulator). */
  readonly simulate?: (request: ForwardRequest) => Promise<UpstreamResponse>;
}

/**
 * Whether `provider`'s native API is served now: it has an enabled channel, or
 * `SIMULATE_PROVIDERS` has the offline simulator answer for every provider without one. Read per
 * request: a channel added or removed changes it without a restart.
 */
export function isProviderEnabled(
  config: Pick<Config, 'simulateProviders'>,
  channels: Pick<ChannelRouting, 'isConfigured'>,
  provider: string,
): boolean {
  return config.simulateProviders || channels.isConfigured(provider);
}

/**
 * The routes of a model through its native API's provider that can be called now, in catalogue
 * (fallback) order, each expanded into its provider's channels in routing order (a channel once
 * per route); a `demo` route always, answered by the native simulator.
 */
export function nativeTargets(
  channels: ChannelRouting,
  model: { readonly id: string },
  routes: readonly ModelRoute[],
): NativeTarget[] {
  const targets: NativeTarget[] = [];
  for (const route of routes) {
    if (route.provider === 'demo') {
      targets.push({ route, baseUrl: SIMULATOR_BASE_URL, apiKey: 'demo', simulate: simulateNative });
      continue;
    }
    for (const channel of channels.candidates(route.provider, model.id)) {
      targets.push({ route, baseUrl: channel.channel.baseUrl, apiKey: channel.channel.apiKey, channel });
    }
  }
  return targets;
}
