import type { Config } from '../config/config.ts';
import { HttpMediaRoute } from '../upstream/http-media-route.ts';
import { DemoMediaRoute } from './demo/media/demo-media-route.ts';
import { elevenlabsMediaAdapter } from './elevenlabs/index.ts';
import { googleMediaAdapter } from './google/media/index.ts';
import { groqMediaAdapter } from './groq/media.ts';
import type { MediaRoute } from './media-route.ts';
import type { MediaProviderAdapter } from './media-types.ts';
import { openaiMediaAdapter } from './openai/media/index.ts';
import type { ProviderId } from './provider-ids.ts';
import {
  adapterOf,
  channelTarget,
  type RouteDeps,
  type RoutedModel,
  type RouteFamily,
  resolveRoutes,
} from './provider-registry.ts';
import { runwayMediaAdapter } from './runway/index.ts';

/** The HTTP adapters of the media capabilities, by provider. */
export const MEDIA_ADAPTERS: Readonly<Partial<Record<ProviderId, MediaProviderAdapter>>> = Object.freeze({
  openai: openaiMediaAdapter,
  groq: groqMediaAdapter,
  google: googleMediaAdapter,
  elevenlabs: elevenlabsMediaAdapter,
  runway: runwayMediaAdapter,
});

/** What resolving media routes needs: the chat routes' needs, the demo render time and a clock. */
export interface MediaRouteDeps extends RouteDeps {
  readonly config: Pick<Config, 'media'>;
  readonly now: () => Date;
}

const MEDIA_ROUTES: RouteFamily<MediaProviderAdapter, MediaRoute, MediaRouteDeps> = {
  adapters: MEDIA_ADAPTERS,
  http: (deps, provider, adapter, target, channel) =>
    new HttpMediaRoute(deps.client, provider, adapter, target, channel),
  demo: (deps, nativeModel) => new DemoMediaRoute(nativeModel, deps.config.media.demoVideoRenderMs, deps.now),
};

/** The media routes of a model that can be tried now, in catalogue order (see `usableRoutes`). */
export function usableMediaRoutes(model: RoutedModel, deps: MediaRouteDeps): MediaRoute[] {
  return resolveRoutes(model, deps, MEDIA_ROUTES, null);
}

/**
 * The route of a render through the channel that accepted it, whatever that channel's health now
 * (a video is polled and downloaded where it was submitted); undefined when the channel or its
 * model's route is gone.
 */
export function channelMediaRoute(
  model: RoutedModel,
  operation: { readonly provider: string; readonly nativeModel: string; readonly channelId?: string },
  deps: MediaRouteDeps,
): MediaRoute | undefined {
  if (operation.provider === 'demo' || operation.channelId === undefined) {
    return usableMediaRoutes(model, deps).find(
      (r) => r.provider === operation.provider && r.nativeModel === operation.nativeModel,
    );
  }
  const channel = deps.channels.attemptOn(operation.channelId, model.id);
  const adapter = adapterOf(MEDIA_ROUTES, operation.provider);
  if (channel === undefined || adapter === undefined) return undefined;
  const target = channelTarget(channel, operation.nativeModel, null);
  return MEDIA_ROUTES.http(deps, operation.provider, adapter, target, channel);
}
