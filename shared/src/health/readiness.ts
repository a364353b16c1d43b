import type { Cluster, Redis } from 'ioredis';
import { request } from 'undici';
import type { RedisSettings } from '../redis/redis-settings.ts';
import type { S3Options } from '../storage/s3.ts';
import type { Store } from '../store/store.ts';

/** One dependency the service cannot work without, and how to see that it answers. */
export interface ReadinessCheck {
  readonly name: string;
  check(signal: AbortSignal): Promise<void>;
}

/**
 * `checks` says which dependency answers (`ok` / `unavailable`) and is safe to show anyone;
 * `reasons` says why one does not (it may name internal addresses): for the logs only.
 */
export type ReadinessReport = {
  ready: boolean;
  checks: Record<string, 'ok' | 'unavailable'>;
  reasons: Record<string, string>;
};

/**
 * Redis in the mode in use: one node answers PING; a Cluster says `cluster_state:ok` and every
 * master it maps answers PING; a Sentinel-managed connection is on a primary (`ROLE`), not on a
 * replica left behind by a failover.
 */
export function redisCheck(redis: Redis, mode: RedisSettings['mode'] = 'single'): ReadinessCheck {
  const ping = async (client: Pick<Redis, 'ping'>) => {
    const answer = await client.ping();
    if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`);
  };
  return {
    name: 'redis',
    async check() {
      if (mode === 'cluster') {
        const info = String(await redis.cluster('INFO'));
        const state = /^cluster_state:(\S+)/m.exec(info)?.[1];
        if (state !== 'ok') throw new Error(`cluster_state:${state ?? 'unknown'}`);
        const masters = (redis as unknown as Cluster).nodes('master');
        if (masters.length === 0) throw new Error('no master known');
        await Promise.all(masters.map(ping));
        return;
      }
      if (mode === 'sentinel') {
        const role = (await redis.call('ROLE')) as unknown[];
        if (role[0] !== 'master') throw new Error(`connected to a ${String(role[0])}, not the primary`);
        return;
      }
      await ping(redis);
    },
  };
}

/** The durable store (SQLite or MongoDB) answers a trivial read. */
export function storeCheck(store: Pick<Store, 'ping'>): ReadinessCheck {
  return { name: 'store', check: () => store.ping() };
}

/**
 * S3 answers HTTP at the bucket's address: any status will do (unsigned, a real S3 answers 403).
 * Without the SDK, which a process loads only once it stores or reads media (s3-connection.ts):
 * a probe must not load it, and whether the keys and the bucket are right is found at first use.
 */
export function s3Check(s3: Pick<S3Options, 'endpoint' | 'region'>, bucket: string): ReadinessCheck {
  const origin = s3.endpoint ?? `https://s3.${s3.region}.amazonaws.com`;
  const url = new URL(`/${encodeURIComponent(bucket)}`, origin);
  return {
    name: 's3',
    async check(signal) {
      // undici, as the api's upstream calls (Node's own fetch is a second copy, loaded apart).
      const answer = await request(url, { method: 'HEAD', signal });
      await answer.body.dump();
    },
  };
}

/** Runs every check in parallel, each bounded by `timeoutMs`, and says which ones failed and why. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
): Promise<ReadinessReport> {
  const results = await Promise.all(checks.map((c) => runBounded(c, timeoutMs)));
  const report: ReadinessReport = { ready: true, checks: {}, reasons: {} };
  checks.forEach((c, i) => {
    const result = results[i] ?? 'ok';
    report.checks[c.name] = result === 'ok' ? 'ok' : 'unavailable';
    if (result === 'ok') return;
    report.reasons[c.name] = result;
    report.ready = false;
  });
  return report;
}

async function runBounded(check: ReadinessCheck, timeoutMs: number): Promise<'ok' | string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    await Promise.race([check.check(controller.signal), timeout]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message || err.name : String(err);
  } finally {
    clearTimeout(timer);
  }
}
