import type { Redis } from '../../../shared/src/redis/redis.ts';
import { digestOf, execAll } from './session-store.ts';

/** docs/console.md: per account 10 and per client IP 30 sign-in attempts in 15 minutes. */
export const SIGN_IN_LIMITS = { perAccount: 10, perIp: 30, windowMs: 15 * 60 * 1000 } as const;

export type SignInAttempt =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface SignInLimiterOptions {
  readonly redis: Redis;
  /** `<QUEUE_PREFIX>:console:` */
  readonly keyPrefix: string;
  readonly limits?: typeof SIGN_IN_LIMITS;
}

/**
 * Counts sign-in attempts (and password checks of a signed-in holder) in Redis, in fixed windows
 * that start with their first attempt. An attempt counts before the password is checked, so
 * concurrent guesses cannot slip past the limit; a success takes its own attempts back.
 */
export interface SignInLimiter {
  /**
   * Counts an attempt for this email (any string naming the account; unknown emails count alike, so
   * the limit reveals nothing) and this IP; refused past either limit.
   */
  attempt(identity: string | null, ip: string): Promise<SignInAttempt>;
  /** The attempt succeeded: the identity's count restarts and the IP's attempt is taken back. */
  succeeded(identity: string | null, ip: string): Promise<void>;
}

// Decrements only a live counter: a DECR after the window ended would leave a key without TTL.
const TAKE_BACK = `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return 0`;

export function createSignInLimiter(options: SignInLimiterOptions): SignInLimiter {
  const { redis, keyPrefix } = options;
  const limits = options.limits ?? SIGN_IN_LIMITS;
  // The email is kept as a digest: Redis holds no personal data for a failed attempt.
  const identityKey = (identity: string) => `${keyPrefix}sign-in:account:${digestOf(identity.toLowerCase())}`;
  const ipKey = (ip: string) => `${keyPrefix}sign-in:ip:${ip}`;

  return {
    async attempt(identity, ip) {
      const counters: Array<{ key: string; limit: number }> = [{ key: ipKey(ip), limit: limits.perIp }];
      if (identity !== null) counters.push({ key: identityKey(identity), limit: limits.perAccount });
      const multi = redis.multi();
      for (const { key } of counters) multi.incr(key).pexpire(key, limits.windowMs, 'NX').pttl(key);
      const results = await execAll(multi);
      let retryAfterMs = 0;
      counters.forEach(({ limit }, index) => {
        const count = Number(results[index * 3]);
        const ttl = Number(results[index * 3 + 2]);
        if (count > limit) retryAfterMs = Math.max(retryAfterMs, ttl > 0 ? ttl : limits.windowMs);
      });
      return retryAfterMs === 0
        ? { allowed: true }
        : { allowed: false, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) };
    },

    async succeeded(identity, ip) {
      const multi = redis.multi().eval(TAKE_BACK, 1, ipKey(ip));
      if (identity !== null) multi.del(identityKey(identity));
      await execAll(multi);
    },
  };
}
