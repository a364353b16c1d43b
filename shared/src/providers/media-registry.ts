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
  type CatalogueRoutes,
  type RouteDeps,
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
  readonly config: Pick<Config, 'providers' | 'compatibleUpstreams' | 'media'>;
  readonly now: () => Date;
}

const MEDIA_ROUTES: RouteFamily<MediaProviderAdapter, MediaRoute, MediaRouteDeps> = {
  adapters: MEDIA_ADAPTERS,
  http: (deps, provider, adapter, target) => new HttpMediaRoute(deps.client, provider, adapter, target),
  demo: (deps, nativeModel) => new DemoMediaRoute(nativeModel, deps.config.media.demoVideoRenderMs, deps.now),
};

/** The media routes of a model that can be tried now, in catalogue order (see `usableRoutes`). */
export function usableMediaRoutes(routes: CatalogueRoutes, deps: MediaRouteDeps): MediaRoute[] {
  return resolveRoutes(routes, deps, MEDIA_ROUTES, null);
}
