import type { Config, UpstreamProviderConfig } from '../config/config.ts';
import { HttpChatRoute } from '../upstream/http-chat-route.ts';
import type { UpstreamClient } from '../upstream/upstream-client.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import type { ChatRoute } from './chat-route.ts';
import type { ProviderAdapter, UpstreamTarget } from './chat-types.ts';
import { deepseekAdapter } from './deepseek/index.ts';
import { DemoChatRoute } from './demo/demo-chat-route.ts';
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

/** What resolving routes needs from the process: which providers are configured, and the client that calls them. */
export interface RouteDeps {
  readonly config: Pick<Config, 'providers' | 'compatibleUpstreams'>;
  readonly client: UpstreamClient;
}

/**
 * How the routes of one family of capabilities (chat and embeddings; media) are made: over the
 * family's HTTP adapter of a configured provider, or over the offline `demo` simulator. The
 * factories take the process's dependencies `D` rather than closing over them, so resolving the
 * routes of a request allocates nothing but the routes.
 */
export interface RouteFamily<A, R, D extends RouteDeps> {
  /** The HTTP adapters of the built-in providers. */
  readonly adapters: Readonly<Partial<Record<ProviderId, A>>>;
  /** The adapter of a declared OpenAI-compatible upstream, for a family that has one. */
  readonly compatibleAdapter?: A;
  http(deps: D, provider: string, adapter: A, target: UpstreamTarget): R;
  demo(deps: D, nativeModel: string): R;
}

/** The routes of a catalogue model, as the registries read them. */
export type CatalogueRoutes = ReadonlyArray<{ provider: string; native_id: string }>;

const CHAT_ROUTES: RouteFamily<ProviderAdapter, ChatRoute, RouteDeps> = {
  adapters: HTTP_ADAPTERS,
  compatibleAdapter: openAICompatibleAdapter,
  http: (deps, provider, adapter, target) => new HttpChatRoute(deps.client, provider, adapter, target),
  demo: (_deps, nativeModel) => new DemoChatRoute(nativeModel),
};

/**
 * The chat and embedding routes of a model that can be tried, in catalogue order. A provider
 * without an API key in the configuration is skipped (never called), so no traffic leaves for an
 * unconfigured upstream.
 */
export function usableRoutes(
  routes: CatalogueRoutes,
  deps: RouteDeps,
  maxOutputTokens: number | null,
): ChatRoute[] {
  return resolveRoutes(routes, deps, CHAT_ROUTES, maxOutputTokens);
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
  return route.provider === 'demo' || configuredUpstream(route.provider, config) !== undefined;
}

/** A provider's upstream (built-in or a declared OpenAI-compatible one) when it has an API key. */
function configuredUpstream(
  provider: string,
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
): (UpstreamProviderConfig & { readonly apiKey: string }) | undefined {
  const upstream = isProviderId(provider)
    ? config.providers[provider as Exclude<ProviderId, 'demo'>]
    : config.compatibleUpstreams[provider];
  return upstream?.apiKey === undefined
    ? undefined
    : (upstream as UpstreamProviderConfig & { apiKey: string });
}

/** The usable routes of a model in one family (chat, media…). */
export function resolveRoutes<A, R, D extends RouteDeps>(
  routes: CatalogueRoutes,
  deps: D,
  family: RouteFamily<A, R, D>,
  maxOutputTokens: number | null,
): R[] {
  const { config } = deps;
  const usable: R[] = [];
  for (const route of routes) {
    if (route.provider === 'demo') {
      usable.push(family.demo(deps, route.native_id));
      continue;
    }
    const upstream = configuredUpstream(route.provider, config);
    const adapter = isProviderId(route.provider)
      ? family.adapters[route.provider as ProviderId]
      : family.compatibleAdapter;
    if (upstream === undefined || adapter === undefined) continue;
    const target: UpstreamTarget = {
      baseUrl: upstream.baseUrl,
      apiKey: upstream.apiKey,
      nativeModel: route.native_id,
    };
    usable.push(family.http(deps, route.provider, adapter, withOutputLimit(target, maxOutputTokens)));
  }
  return usable;
}

function withOutputLimit(target: UpstreamTarget, maxOutputTokens: number | null): UpstreamTarget {
  return maxOutputTokens === null ? target : { ...target, maxOutputTokens };
}
