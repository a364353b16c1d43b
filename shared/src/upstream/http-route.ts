import type { ChannelAttempt } from '../channels/channel-router.ts';
import type { UpstreamTarget } from '../providers/chat-types.ts';
import type { UpstreamClient } from './upstream-client.ts';

/**
 * What a route over an HTTP adapter holds, whatever its family (chat and embeddings, media): the
 * client that sends, the provider, the provider's adapter `A` of the family, and where and as whom
 * to call it. One per route and request; its subclasses keep their methods on the prototype, so
 * calling a route allocates nothing beyond the call itself.
 */
export class HttpRoute<A> {
  readonly client: UpstreamClient;
  readonly provider: string;
  readonly adapter: A;
  readonly target: UpstreamTarget;
  /** The channel whose credential and URL `target` holds. */
  readonly channel: ChannelAttempt | null;

  constructor(
    client: UpstreamClient,
    provider: string,
    adapter: A,
    target: UpstreamTarget,
    channel: ChannelAttempt | null = null,
  ) {
    this.client = client;
    this.provider = provider;
    this.adapter = adapter;
    this.target = target;
    this.channel = channel;
  }

  /** The target's model id. */
  get nativeModel(): string {
    return this.target.nativeModel;
  }
}
