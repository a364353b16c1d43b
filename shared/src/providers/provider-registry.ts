import type { Config } from '../config/config.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import type { ProviderAdapter, UpstreamTarget } from './chat-types.ts';
import { deepseekAdapter } from './deepseek/index.ts';
import { googleAdapter } from './google/index.ts';
import { groqAdapter } from './groq/index.ts';
import { mistralAdapter } from './mistral/index.ts';
import { openaiAdapter } from './openai/index.ts';
import { openAICompatibleAdapter } from './openai-compatible/create-openai-compatible.ts';
import { isProviderId, type ProviderId } from './provider-ids.ts';
import { xaiAdapter } from './xai/index.ts';

/** The HTTP adapters of the chat and embedding capabilities, by provider. */
export const HTTP_ADAPTERS: Readonly<Partial<Record<ProviderId, ProviderAdapter>>> = Object.freeze({
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  google: googleAdapter,
  deepseek: deepseekAdapter,
  xai: xaiAdapter,
  mistral: mistralAdapter,
  groq: groqAdapter,
});

/** A route the gateway can take right now: the provider is known and has credentials configured. */
export type ResolvedRoute<A = ProviderAdapter> =
  | { readonly kind: 'demo'; readonly provider: 'demo'; readonly nativeModel: string }
  | {
      readonly kind: 'http';
      readonly provider: string;
      readonly adapter: A;
      readonly target: UpstreamTarget;
    };

/** The model id the route's provider knows (the catalogue's `native_id`). */
export function nativeModelOf<A>(route: ResolvedRoute<A>): string {
  return route.kind === 'demo' ? route.nativeModel : route.target.nativeModel;
}

type CatalogueRoutes = ReadonlyArray<{ provider: string; native_id: string }>;

/**
 * The chat and embedding routes of a model that can be tried, in catalogue order. A provider
 * without an API key in the configuration is skipped (never called), so no traffic leaves for an
 * unconfigured upstream.
 */
export function usableRoutes(
  routes: CatalogueRoutes,
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
  maxOutputTokens: number | null,
): ResolvedRoute[] {
  return resolveRoutes(routes, config, HTTP_ADAPTERS, maxOutputTokens, openAICompatibleAdapter);
}

/**
 * Whether the gateway may call a route's provider at all: the offline `demo` simulator always; any
 * other provider (built-in or a declared OpenAI-compatible upstream) only with an API key
 * configured. The one rule behind both routing (`resolveRoutes`) and which models the catalogue
 * serves (`loadConfiguredCatalogue`).
 */
export function isRouteConfigured(
  route: { readonly provider: string },
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
): boolean {
  if (route.provider === 'demo') return true;
  const upstream = isProviderId(route.provider)
    ? config.providers[route.provider as Exclude<ProviderId, 'demo'>]
    : config.compatibleUpstreams[route.provider];
  return upstream?.apiKey !== undefined;
}

/** The usable routes of a model over a given adapter table (chat, media…). */
export function resolveRoutes<A>(
  routes: CatalogueRoutes,
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
  adapters: Readonly<Partial<Record<ProviderId, A>>>,
  maxOutputTokens: number | null,
  compatibleAdapter?: A,
): ResolvedRoute<A>[] {
  const usable: ResolvedRoute<A>[] = [];
  for (const route of routes) {
    if (route.provider === 'demo') {
      usable.push({ kind: 'demo', provider: 'demo', nativeModel: route.native_id });
      continue;
    }
    if (!isRouteConfigured(route, config)) continue;
    const builtIn = isProviderId(route.provider);
    const adapter = builtIn ? adapters[route.provider as ProviderId] : compatibleAdapter;
    const upstream = builtIn
      ? config.providers[route.provider as Exclude<ProviderId, 'demo'>]
      : config.compatibleUpstreams[route.provider];
    if (adapter === undefined || upstream?.apiKey === undefined) continue;
    const target: UpstreamTarget = {
      baseUrl: upstream.baseUrl,
      apiKey: upstream.apiKey,
      nativeModel: route.native_id,
    };
    usable.push({
      kind: 'http',
      provider: route.provider,
      adapter,
      target: withOutputLimit(target, maxOutputTokens),
    });
  }
  return usable;
}

function withOutputLimit(target: UpstreamTarget, maxOutputTokens: number | null): UpstreamTarget {
  return maxOutputTokens === null ? target : { ...target, maxOutputTokens };
}
