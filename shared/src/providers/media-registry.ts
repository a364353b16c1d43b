import type { Config } from '../config/config.ts';
import { elevenlabsMediaAdapter } from './elevenlabs/index.ts';
import { googleMediaAdapter } from './google/media/index.ts';
import { groqMediaAdapter } from './groq/media.ts';
import type { MediaProviderAdapter } from './media-types.ts';
import { openaiMediaAdapter } from './openai/media/index.ts';
import type { ProviderId } from './provider-ids.ts';
import { type ResolvedRoute, resolveRoutes } from './provider-registry.ts';
import { runwayMediaAdapter } from './runway/index.ts';

/** The HTTP adapters of the media capabilities, by provider. */
export const MEDIA_ADAPTERS: Readonly<Partial<Record<ProviderId, MediaProviderAdapter>>> = Object.freeze({
  openai: openaiMediaAdapter,
  groq: groqMediaAdapter,
  google: googleMediaAdapter,
  elevenlabs: elevenlabsMediaAdapter,
  runway: runwayMediaAdapter,
});

export type MediaRoute = ResolvedRoute<MediaProviderAdapter>;

/** The media routes of a model that can be tried now, in catalogue order (see `usableRoutes`). */
export function usableMediaRoutes(
  routes: ReadonlyArray<{ provider: string; native_id: string }>,
  config: Pick<Config, 'providers' | 'compatibleUpstreams'>,
): MediaRoute[] {
  return resolveRoutes(routes, config, MEDIA_ADAPTERS, null);
}
