import type { UpstreamFailure } from '../upstream/upstream-failure.ts';
import type { LiveChannel } from './channel.ts';
import type { ChannelBreaker } from './channel-breaker.ts';
import type { ChannelFigures } from './channel-figures.ts';
import { observeChannelAttempt } from './channel-metrics.ts';
import type { ChannelSnapshot } from './channel-registry.ts';

/** What routing needs of channels, on every surface (see `resolveRoutes`, `nativeTargets`). */
export interface ChannelRouting {
  /**
   * The channels of `provider` that may serve `modelId` now, in the order to try them: healthy
   * enabled ones serving the model, the lowest `priority` value first, weighted random by `weight`
   * within a priority; a half-open channel is among them as a probe.
   */
  candidates(provider: string, modelId: string): ChannelAttempt[];
  /** Whether `provider` has at least one enabled channel (it is configured, else simulated or unavailable). */
  isConfigured(provider: string): boolean;
  /** A channel by id, whatever its health: a video polls through the channel that accepted it. */
  attemptOn(channelId: string, modelId: string): ChannelAttempt | undefined;
}

/** Where a channel's failures go: refusals to `autoDisable`, the rest to the breaker. */
export interface ChannelHealthSink {
  autoDisable(channel: LiveChannel, reason: string): Promise<void>;
}

/**
 * One channel tried for one request: routing reads its credential and URL, and the attempt loop
 * reports how it went. A success of a scope without history costs nothing beyond the figures in
 * memory; a failure is reported to the breaker off the request's path.
 */
export class ChannelAttempt {
  private startedAt = 0;
  private readonly router: ChannelRouter;
  readonly channel: LiveChannel;
  readonly modelId: string;
  /** The scope that is half-open, when this attempt is its probe candidate. */
  readonly probeScope: string | null;

  constructor(router: ChannelRouter, channel: LiveChannel, modelId: string, probeScope: string | null) {
    this.router = router;
    this.channel = channel;
    this.modelId = modelId;
    this.probeScope = probeScope;
  }

  get id(): string {
    return this.channel.id;
  }

  /** Before the call: false when this is a probe another request already took (skip the channel). */
  begin(): Promise<boolean> | true {
    this.startedAt = performance.now();
    if (this.probeScope === null) return true;
    return this.router.breaker.takeProbe(this.probeScope);
  }

  succeeded(): void {
    const router = this.router;
    const latency = performance.now() - this.startedAt;
    router.figures.record(this.channel.id, true, latency);
    observeChannelAttempt(this.channel, 'ok');
    const breaker = router.breaker;
    const own = this.channel.id;
    if (breaker.hasHistory(own)) breaker.succeeded(own);
    if (this.probeScope !== null && this.probeScope !== own) breaker.succeeded(this.probeScope);
  }

  /** A failed call; a failure that is the request's own (400, 413, 422) or the client leaving is not the channel's. */
  failed(failure: UpstreamFailure): void {
    if (failure.transport === 'aborted') return;
    const router = this.router;
    if (failure.credentialRejected === true) {
      router.figures.record(this.channel.id, false, performance.now() - this.startedAt);
      observeChannelAttempt(this.channel, 'credential_refused');
      const reason = `the provider refused the credential (HTTP ${failure.status ?? 'error'}): ${failure.message}`;
      void router.health.autoDisable(this.channel, reason.slice(0, 300)).catch(() => undefined);
      return;
    }
    if (!failure.retryable) return;
    router.figures.record(this.channel.id, false, performance.now() - this.startedAt);
    observeChannelAttempt(this.channel, 'failed');
    // A model this channel does not serve counts against the channel and that model only.
    const scope = failure.status === 404 ? `${this.channel.id}|${this.modelId}` : this.channel.id;
    const reason = failure.status === null ? failure.message : `HTTP ${failure.status}: ${failure.message}`;
    router.breaker.failed(scope, { reason, retryAfterMs: failure.retryAfterMs }, this.probeScope === scope);
  }
}

/** What routing reads and reports of the breaker (the process's `ChannelBreaker`). */
export type BreakerView = Pick<
  ChannelBreaker,
  'anyOpen' | 'view' | 'hasHistory' | 'succeeded' | 'failed' | 'takeProbe'
>;

/** Routing over the process's channel snapshot and breaker view (memory only on a request's path). */
export class ChannelRouter implements ChannelRouting {
  private readonly channels: () => ChannelSnapshot;
  readonly breaker: BreakerView;
  readonly figures: Pick<ChannelFigures, 'record'>;
  readonly health: ChannelHealthSink;
  private readonly random: () => number;

  constructor(
    channels: () => ChannelSnapshot,
    breaker: BreakerView,
    figures: Pick<ChannelFigures, 'record'>,
    health: ChannelHealthSink,
    random: () => number = Math.random,
  ) {
    this.channels = channels;
    this.breaker = breaker;
    this.figures = figures;
    this.health = health;
    this.random = random;
  }

  candidates(provider: string, modelId: string): ChannelAttempt[] {
    const all = this.channels().byProvider.get(provider);
    if (all === undefined) return [];
    const picked: Array<{ attempt: ChannelAttempt; order: number }> = [];
    for (const channel of all) {
      if (!channel.enabled || channel.autoDisabledReason !== null) continue;
      if (channel.models !== null && !channel.models.has(modelId)) continue;
      const probeScope = this.probeScopeOf(channel.id, modelId);
      if (probeScope === false) continue;
      // Efraimidis–Spirakis: sorting by u^(1/w) descending is a weighted random order.
      const order = this.random() ** (1 / channel.weight);
      picked.push({ attempt: new ChannelAttempt(this, channel, modelId, probeScope), order });
    }
    if (picked.length > 1) {
      picked.sort((a, b) => a.attempt.channel.priority - b.attempt.channel.priority || b.order - a.order);
    }
    return picked.map((p) => p.attempt);
  }

  isConfigured(provider: string): boolean {
    const all = this.channels().byProvider.get(provider);
    return all?.some((channel) => channel.enabled) === true;
  }

  attemptOn(channelId: string, modelId: string): ChannelAttempt | undefined {
    const channel = this.channels().byId.get(channelId);
    return channel === undefined ? undefined : new ChannelAttempt(this, channel, modelId, null);
  }

  /** null: closed; a scope: half-open (the attempt is its probe); false: open, skip it. */
  private probeScopeOf(channelId: string, modelId: string): string | null | false {
    const breaker = this.breaker;
    if (!breaker.anyOpen) return null;
    const own = breaker.view(channelId);
    if (own === 'open') return false;
    const modelScope = `${channelId}|${modelId}`;
    const forModel = breaker.view(modelScope);
    if (forModel === 'open') return false;
    if (own === 'half_open') return channelId;
    return forModel === 'half_open' ? modelScope : null;
  }
}
