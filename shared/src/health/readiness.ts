import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Redis } from 'ioredis';
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

export function redisCheck(redis: Redis): ReadinessCheck {
  return {
    name: 'redis',
    async check() {
      const answer = await redis.ping();
      if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`);
    },
  };
}

/** The durable store (SQLite or MongoDB) answers a trivial read. */
export function storeCheck(store: Pick<Store, 'ping'>): ReadinessCheck {
  return { name: 'store', check: () => store.ping() };
}

export function s3Check(s3: S3Client, bucket: string): ReadinessCheck {
  return {
    name: 's3',
    check: async (signal) =>
      void (await s3.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal })),
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
