import type { Config } from '../config/config.ts';
import type { LiveChannel } from './channel.ts';

type Upstreams = Pick<Config, 'providers' | 'compatibleUpstreams'>;

/**
 * The channels of the `<PROVIDER>_API_KEY` variables: one per built-in provider and declared
 * OpenAI-compatible upstream with a key, read-only (`source: "environment"`), so a setup without
 * stored channels routes as it always did.
 */
export function environmentChannels(config: Upstreams): LiveChannel[] {
  const upstreams = [...Object.entries(config.providers), ...Object.entries(config.compatibleUpstreams)];
  const channels: LiveChannel[] = [];
  for (const [provider, upstream] of upstreams) {
    if (upstream.apiKey === undefined) continue;
    channels.push(
      Object.freeze({
        id: environmentChannelId(provider),
        provider,
        name: `${provider}-environment`,
        baseUrl: upstream.baseUrl,
        apiKey: upstream.apiKey,
        keyLast4: upstream.apiKey.slice(-4),
        weight: 1,
        priority: 0,
        models: null,
        enabled: true,
        autoDisabledReason: null,
        source: 'environment' as const,
      }),
    );
  }
  return channels;
}

/** The fixed id of a provider's environment channel. */
export function environmentChannelId(provider: string): string {
  return `ch_env_${provider.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** The base URL a channel without one of its own calls: the configured (or official) provider URL. */
export function providerBaseUrl(config: Upstreams, provider: string): string | undefined {
  const builtIn = (config.providers as Readonly<Record<string, { baseUrl: string }>>)[provider];
  return builtIn?.baseUrl ?? config.compatibleUpstreams[provider]?.baseUrl;
}
