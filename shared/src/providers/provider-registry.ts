import type { ChannelAttempt, ChannelRouting } from '../channels/channel-router.ts';
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

/** What resolving routes needs from the process: its channels, and the client that calls them. */
export interface RouteDeps {
  readonly channels: ChannelRouting;
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
  http(deps: D, provider: string, adapter: A, target: UpstreamTarget, channel: ChannelAttempt): R;
  demo(deps: D, nativeModel: string): R;
}

/** The routes of a catalogue model, as the registries read them. */
export type CatalogueRoutes = ReadonlyArray<{ provider: string; native_id: string }>;

/** What route resolution reads of a catalogue model. */
export interface RoutedModel {
  readonly id: string;
  readonly routes: CatalogueRoutes;
  readonly max_output_tokens?: number | null;
}

const CHAT_ROUTES: RouteFamily<ProviderAdapter, ChatRoute, RouteDeps> = {
  adapters: HTTP_ADAPTERS,
  compatibleAdapter: openAICompatibleAdapter,
  http: (deps, provider, adapter, target, channel) =>
    new HttpChatRoute(deps.client, provider, adapter, target, channel),
  demo: (_deps, nativeModel) => new DemoChatRoute(nativeModel),
};

/**
 * The chat and embedding routes of a model that can be tried, in order: each catalogue route
 * expanded into its provider's channels that may serve the model now (see `ChannelRouting`). A
 * provider without a channel is skipped (never called), so no traffic leaves for an unconfigured
 * upstream.
 */
export function usableRoutes(model: RoutedModel, deps: RouteDeps): ChatRoute[] {
  return resolveRoutes(model, deps, CHAT_ROUTES, model.max_output_tokens ?? null);
}

/**
 * Whether the gateway may call a route's provider at all: the offline `demo` simulator always; any
 * other provider (built-in or a declared OpenAI-compatible upstream) only with an enabled channel.
 * The one rule behind both routing (`resolveRoutes`) and which models the catalogue serves.
 */
export function isRouteConfigured(
  route: { readonly provider: string },
  channels: Pick<ChannelRouting, 'isConfigured'>,
): boolean {
  return route.provider === 'demo' || channels.isConfigured(route.provider);
}

/** The adapter of a family for a provider: a built-in one, or the compatible one. */
export function adapterOf<A>(
  family: Pick<RouteFamily<A, unknown, RouteDeps>, 'adapters' | 'compatibleAdapter'>,
  provider: string,
): A | undefined {
  return isProviderId(provider) ? family.adapters[provider as ProviderId] : family.compatibleAdapter;
}

/**
 * The usable routes of a model in one family (chat, media…): in catalogue order, each route's
 * provider's channels in the order routing picked them. A channel is tried at most once per route
 * (one native model) of a request; two catalogue routes of one provider naming different native
 * models (a dated snapshot as the fallback of an alias) are two attempts.
 */
export function resolveRoutes<A, R, D extends RouteDeps>(
  model: RoutedModel,
  deps: D,
  family: RouteFamily<A, R, D>,
  maxOutputTokens: number | null,
): R[] {
  const usable: R[] = [];
  for (const route of model.routes) {
    if (route.provider === 'demo') {
      usable.push(family.demo(deps, route.native_id));
      continue;
    }
    const adapter = adapterOf(family, route.provider);
    if (adapter === undefined) continue;
    // Each candidate once per route: a channel is tried at most once for one native model.
    for (const channel of deps.channels.candidates(route.provider, model.id)) {
      const target = channelTarget(channel, route.native_id, maxOutputTokens);
      usable.push(family.http(deps, route.provider, adapter, target, channel));
    }
  }
  return usable;
}

/** Where and as whom a route over `channel` calls, for the provider's `nativeModel`. */
export function channelTarget(
  channel: ChannelAttempt,
  nativeModel: string,
  maxOutputTokens: number | null,
): UpstreamTarget {
  const target = { baseUrl: channel.channel.baseUrl, apiKey: channel.channel.apiKey, nativeModel };
  return maxOutputTokens === null ? target : { ...target, maxOutputTokens };
}
