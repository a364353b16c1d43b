import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import { type BreakerKeys, type BreakerRedis, breakerKeys, withBreakerScripts } from './breaker-scripts.ts';

/** The breaker's settings (`CHANNEL_FAILURE_THRESHOLD`, `CHANNEL_COOLDOWN_MS`). */
export interface BreakerSettings {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
}

/** Consecutive failures count only within this window from the first one. */
export const FAILURE_WINDOW_MS = 30_000;
/** The longest cooldown: a `Retry-After` or a doubled cooldown is bounded here. */
export const MAX_COOLDOWN_MS = 10 * 60_000;
/** How often each process reads the whole breaker state again (a missed message is caught here). */
const RESYNC_MS = 3_000;

/** An open scope, as this process knows it. */
export interface OpenScope {
  readonly untilMs: number;
  readonly cooldownMs: number;
  readonly reason: string;
}

/** What routing asks of a scope (a channel, or a channel and one model): closed, open, or half-open. */
export type ScopeView = 'closed' | 'open' | 'half_open';

/** One failed attempt, as the breaker weighs it. */
export interface ReportedFailure {
  readonly reason: string;
  /** From an upstream 429's `Retry-After`: the cooldown to open with. */
  readonly retryAfterMs?: number | null;
}

/**
 * A breaker per scope shared by every replica: the truth is in Redis (see `breaker-scripts.ts`),
 * each process keeps a view of the open scopes in memory, changed by the published events and read
 * again every few seconds. Routing reads only the view: a successful request costs no Redis round
 * trip. Failures are reported off the request's path; while Redis is away, each process counts on
 * its own and opens a scope locally at the threshold, so it still stops sending to a dead channel.
 */
export class ChannelBreaker {
  private readonly redis: BreakerRedis;
  private readonly keys: BreakerKeys;
  private readonly opened = new Map<string, OpenScope>();
  /** Consecutive failures seen here since the scope's last success (local, for the outage case). */
  private readonly localFailures = new Map<string, number>();
  private readonly listeners: Array<(scope: string, state: OpenScope | null) => void> = [];
  private resync: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly subscriber: Redis;
  private readonly settings: BreakerSettings;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(
    redis: Redis,
    subscriber: Redis,
    prefix: string,
    settings: BreakerSettings,
    logger: Logger,
    now: () => number = Date.now,
  ) {
    this.subscriber = subscriber;
    this.settings = settings;
    this.logger = logger;
    this.now = now;
    this.redis = withBreakerScripts(redis);
    this.keys = breakerKeys(prefix);
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.keys.events) this.apply(message);
    });
    await this.subscriber.subscribe(this.keys.events);
    await this.reload();
    this.resync = setInterval(() => void this.reload().catch(() => undefined), RESYNC_MS);
    this.resync.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.resync !== undefined) clearInterval(this.resync);
    await this.subscriber.unsubscribe(this.keys.events).catch(() => undefined);
  }

  /** Called with every change of a scope this process learns of (metrics). */
  onChange(listener: (scope: string, state: OpenScope | null) => void): void {
    this.listeners.push(listener);
  }

  /** Whether any scope is open or half-open (else routing checks nothing). */
  get anyOpen(): boolean {
    return this.opened.size > 0;
  }

  /** How a scope stands now, from memory alone. */
  view(scope: string): ScopeView {
    const open = this.opened.get(scope);
    if (open === undefined) return 'closed';
    return this.now() < open.untilMs ? 'open' : 'half_open';
  }

  /** The open state of a scope, for the operator's view. */
  openState(scope: string): OpenScope | undefined {
    return this.opened.get(scope);
  }

  /** Whether this process has anything to forget on a success of `scope` (else the success is free). */
  hasHistory(scope: string): boolean {
    return this.opened.has(scope) || this.localFailures.has(scope);
  }

  /**
   * Takes the one probe of a half-open scope for this request (across every replica); false when
   * another request (here or on another replica) has it. While Redis is away, the probe is taken.
   */
  async takeProbe(scope: string): Promise<boolean> {
    const open = this.opened.get(scope);
    const ttl = Math.max(1_000, open?.cooldownMs ?? this.settings.cooldownMs);
    try {
      const taken = await this.redis.channelTakeProbe(
        this.keys.open,
        this.keys.probe(scope),
        scope,
        this.now(),
        ttl,
      );
      return taken === 1;
    } catch {
      return true;
    }
  }

  /** A success of `scope` (only called when `hasHistory`): its failures and open state end. */
  succeeded(scope: string): void {
    this.localFailures.delete(scope);
    const wasOpen = this.opened.delete(scope);
    if (wasOpen) this.emit(scope, null);
    this.redis
      .channelSuccess(this.keys.failures, this.keys.open, this.keys.events, this.keys.probe(scope), scope)
      .catch((err: unknown) => this.logger.warn({ err, scope }, 'channel breaker: success not reported'));
  }

  /** A failed attempt on `scope`, reported off the request's path; `probe` when it was the probe. */
  failed(scope: string, failure: ReportedFailure, probe: boolean): void {
    const count = (this.localFailures.get(scope) ?? 0) + 1;
    this.localFailures.set(scope, count);
    const now = this.now();
    const reason = failure.reason.replace(/[|\r\n]/g, ' ').slice(0, 200);
    const report = probe
      ? this.redis.channelProbeFailed(
          this.keys.open,
          this.keys.events,
          this.keys.probe(scope),
          scope,
          now,
          MAX_COOLDOWN_MS,
          reason,
        )
      : this.redis.channelFailure(
          this.keys.failures,
          this.keys.open,
          this.keys.events,
          scope,
          now,
          this.settings.failureThreshold,
          FAILURE_WINDOW_MS,
          cooldownFor(failure, this.settings.cooldownMs),
          reason,
        );
    report.catch((err: unknown) => {
      this.logger.warn({ err, scope }, 'channel breaker: failure not reported (Redis); counted here');
      this.openLocally(scope, count, failure, reason, probe);
    });
  }

  /** Forgets everything of a channel on every replica (an edit, a passing test). */
  async reset(channelId: string): Promise<void> {
    for (const scope of [...this.opened.keys()]) {
      if (scope === channelId || scope.startsWith(`${channelId}|`)) {
        this.opened.delete(scope);
        this.emit(scope, null);
      }
    }
    for (const scope of [...this.localFailures.keys()]) {
      if (scope === channelId || scope.startsWith(`${channelId}|`)) this.localFailures.delete(scope);
    }
    await this.redis.channelReset(
      this.keys.failures,
      this.keys.open,
      this.keys.events,
      this.keys.probe(''),
      channelId,
    );
  }

  /** The whole open state again from Redis (start, and every few seconds). */
  async reload(): Promise<void> {
    if (this.closed) return;
    const entries = await this.redis.hgetall(this.keys.open);
    const seen = new Set<string>();
    for (const [scope, value] of Object.entries(entries)) {
      const state = parseOpen(value);
      if (state === null) continue;
      seen.add(scope);
      const known = this.opened.get(scope);
      if (known?.untilMs !== state.untilMs) {
        this.opened.set(scope, state);
        this.emit(scope, state);
      }
    }
    for (const scope of [...this.opened.keys()]) {
      if (!seen.has(scope)) {
        this.opened.delete(scope);
        this.emit(scope, null);
      }
    }
  }

  private apply(message: string): void {
    const parts = message.split('|');
    if (parts[0] === 'close') {
      const scope = parts.slice(1).join('|');
      this.localFailures.delete(scope);
      if (this.opened.delete(scope)) this.emit(scope, null);
      return;
    }
    const [kind, until, cooldown, reason] = parts;
    const scope = parts.slice(4).join('|');
    const state = parseOpen(`${until}:${cooldown}:${reason ?? ''}`);
    if (kind === 'open' && scope !== '' && state !== null) {
      this.localFailures.delete(scope);
      this.opened.set(scope, state);
      this.emit(scope, state);
    }
  }

  private openLocally(
    scope: string,
    count: number,
    failure: ReportedFailure,
    reason: string,
    probe: boolean,
  ) {
    const known = this.opened.get(scope);
    if (!probe && count < this.settings.failureThreshold) return;
    const cooldownMs = probe
      ? Math.min(Math.max((known?.cooldownMs ?? this.settings.cooldownMs) * 2, 1_000), MAX_COOLDOWN_MS)
      : cooldownFor(failure, this.settings.cooldownMs);
    const state = { untilMs: this.now() + cooldownMs, cooldownMs, reason };
    this.localFailures.delete(scope);
    this.opened.set(scope, state);
    this.emit(scope, state);
  }

  private emit(scope: string, state: OpenScope | null): void {
    for (const listener of this.listeners) listener(scope, state);
  }
}

/** The cooldown a failure opens with: its `Retry-After` (bounded), else the configured one. */
export function cooldownFor(failure: ReportedFailure, cooldownMs: number): number {
  const retryAfter = failure.retryAfterMs;
  if (retryAfter !== undefined && retryAfter !== null && retryAfter > 0)
    return Math.min(Math.ceil(retryAfter), MAX_COOLDOWN_MS);
  return cooldownMs;
}

function parseOpen(value: string): OpenScope | null {
  const match = /^(\d+):(\d+):(.*)$/s.exec(value);
  if (match === null) return null;
  return { untilMs: Number(match[1]), cooldownMs: Number(match[2]), reason: match[3] ?? '' };
}
