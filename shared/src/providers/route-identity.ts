import type { ChannelAttempt } from '../channels/channel-router.ts';

/**
 * What every resolved route has, whichever implementation calls it (an HTTP adapter or the
 * offline `demo` simulator): what fallback, metrics and traces name an attempt by.
 */
export interface RouteIdentity {
  readonly provider: string;
  /** The model id the route's provider knows (the catalogue's `native_id`). */
  readonly nativeModel: string;
  /** The channel the route calls through (its credential and URL); absent on `demo` routes. */
  readonly channel?: ChannelAttempt | null;
}
