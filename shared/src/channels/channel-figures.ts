import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import type { ChannelFigures as Figures } from './channel-state.ts';

/** How often each process adds its counts to Redis and reads everyone's back. */
const FLUSH_MS = 5_000;
const MINUTE_MS = 60_000;
/** Latency buckets grow by this factor from 1 ms: a p50 within 12 % of the truth. */
const BUCKET_FACTOR = 1.25;
const BUCKETS = 80;

interface MinuteCounts {
  requests: number;
  failures: number;
  latencies: Map<number, number>;
}

/**
 * Each channel's traffic of the last hour, across every replica: counted in memory on the request's
 * path, added to one Redis hash per channel (fields per minute: requests, failures, latency
 * buckets) every few seconds in one pipeline, and read back in the same pass, so the operator's
 * figures are a few seconds old and no request waits for them.
 */
export class ChannelFigures {
  private pending = new Map<string, Map<number, MinuteCounts>>();
  private read = new Map<string, Figures>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | null = null;

  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly channelIds: () => Iterable<string>;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(
    redis: Redis,
    prefix: string,
    channelIds: () => Iterable<string>,
    logger: Logger,
    now: () => number = Date.now,
  ) {
    this.redis = redis;
    this.prefix = prefix;
    this.channelIds = channelIds;
    this.logger = logger;
    this.now = now;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.flush();
  }

  record(channelId: string, ok: boolean, latencyMs: number): void {
    const minute = Math.floor(this.now() / MINUTE_MS);
    let minutes = this.pending.get(channelId);
    if (minutes === undefined) {
      minutes = new Map();
      this.pending.set(channelId, minutes);
    }
    let counts = minutes.get(minute);
    if (counts === undefined) {
      counts = { requests: 0, failures: 0, latencies: new Map() };
      minutes.set(minute, counts);
    }
    counts.requests += 1;
    if (!ok) counts.failures += 1;
    const bucket = bucketOf(latencyMs);
    counts.latencies.set(bucket, (counts.latencies.get(bucket) ?? 0) + 1);
  }

  /** The last hour's figures of a channel, as last read (zeros before its first request). */
  figures(channelId: string): Figures {
    return this.read.get(channelId) ?? { requests: 0, failures: 0, p50LatencyMs: null };
  }

  /** Adds this process's counts and reads every channel's hour again (also called by tests). */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const pending = this.pending;
    this.pending = new Map();
    const ids = [...new Set([...this.channelIds(), ...pending.keys()])];
    const pipeline = this.redis.pipeline();
    for (const [channelId, minutes] of pending) {
      const key = this.keyOf(channelId);
      for (const [minute, counts] of minutes) {
        pipeline.hincrby(key, `${minute}:r`, counts.requests);
        if (counts.failures > 0) pipeline.hincrby(key, `${minute}:f`, counts.failures);
        for (const [bucket, n] of counts.latencies) pipeline.hincrby(key, `${minute}:b${bucket}`, n);
      }
      pipeline.pexpire(key, 2 * 60 * MINUTE_MS);
    }
    for (const channelId of ids) pipeline.hgetall(this.keyOf(channelId));
    try {
      const results = await pipeline.exec();
      const reads = (results ?? []).slice(-ids.length);
      const fromMinute = Math.floor(this.now() / MINUTE_MS) - 59;
      const read = new Map<string, Figures>();
      ids.forEach((channelId, index) => {
        const [err, fields] = reads[index] ?? [null, {}];
        if (err === null)
          read.set(channelId, this.summarise(channelId, fields as Record<string, string>, fromMinute));
      });
      this.read = read;
    } catch (err) {
      // Redis away: this process's counts are kept for the next pass.
      for (const [channelId, minutes] of pending) {
        const merged = this.pending.get(channelId) ?? new Map();
        for (const [minute, counts] of minutes) merged.set(minute, counts);
        this.pending.set(channelId, merged);
      }
      this.logger.debug({ err }, 'channel figures not flushed');
    }
  }

  private summarise(channelId: string, fields: Record<string, string>, fromMinute: number): Figures {
    let requests = 0;
    let failures = 0;
    const buckets = new Map<number, number>();
    const stale: string[] = [];
    for (const [field, value] of Object.entries(fields)) {
      const [minuteText, kind] = field.split(':');
      if (Number(minuteText) < fromMinute) {
        stale.push(field);
        continue;
      }
      const n = Number(value);
      if (kind === 'r') requests += n;
      else if (kind === 'f') failures += n;
      else if (kind?.startsWith('b')) {
        const bucket = Number(kind.slice(1));
        buckets.set(bucket, (buckets.get(bucket) ?? 0) + n);
      }
    }
    if (stale.length > 0) void this.redis.hdel(this.keyOf(channelId), ...stale).catch(() => undefined);
    return { requests, failures, p50LatencyMs: median(buckets) };
  }

  private keyOf(channelId: string): string {
    return `${this.prefix}:{channels}:figures:${channelId}`;
  }
}

function bucketOf(latencyMs: number): number {
  if (!(latencyMs > 1)) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log(latencyMs) / Math.log(BUCKET_FACTOR)));
}

/** The middle of the bucket holding the median, in whole milliseconds. */
function median(buckets: ReadonlyMap<number, number>): number | null {
  let total = 0;
  for (const n of buckets.values()) total += n;
  if (total === 0) return null;
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  let seen = 0;
  for (const [bucket, n] of sorted) {
    seen += n;
    if (seen * 2 >= total) {
      if (bucket === 0) return 1;
      return Math.round(BUCKET_FACTOR ** (bucket - 0.5));
    }
  }
  return null;
}
