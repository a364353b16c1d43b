import type { Redis } from '../../../shared/src/redis/redis.ts';
import { digestOf, execAll } from './session-store.ts';

/**
 * docs/console.md: in 15 minutes, 10 attempts per account from one client IP, 100 per account from
 * anywhere, 30 per client IP. The account's own ceiling is the higher one: reaching it takes many
 * addresses, so whoever knows an email cannot keep its holder out from one address.
 */
export const SIGN_IN_LIMITS = {
  perAccountAndIp: 10,
  perAccount: 100,
  perIp: 30,
  windowMs: 15 * 60 * 1000,
} as const;

export type SignInLimits = { readonly [K in keyof typeof SIGN_IN_LIMITS]: number };

export type SignInAttempt =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface SignInLimiterOptions {
  readonly redis: Redis;
  /** `<QUEUE_PREFIX>:console:` */
  readonly keyPrefix: string;
  readonly limits?: SignInLimits;
}

/**
 * Wrong secrets per client IP, counted only when wrong: for a secret checked at once without a
 * store (the operator API's bearer token), where counting every request would limit the operator's
 * own busy scripts. Shares the IP counter of sign-in attempts: one address gets one budget of
 * guesses at `ADMIN_TOKEN`, whichever door it knocks at.
 */
export interface IpFailureLimiter {
  /** Whether the IP may still try; a right secret from a refused IP is refused too. */
  checkIp(ip: string): Promise<SignInAttempt>;
  /** Counts a wrong secret from the IP; refused once past the IP's limit. */
  failIp(ip: string): Promise<SignInAttempt>;
}

/**
 * Counts sign-in attempts (and password checks of a signed-in holder) in Redis, in fixed windows
 * that start with their first attempt, so every api replica counts alike. An attempt counts before
 * the password is checked, so concurrent guesses cannot slip past the limit; a success takes its
 * own attempts back.
 */
export interface SignInLimiter extends IpFailureLimiter {
  /**
   * Counts an attempt for this email (any string naming the account; unknown emails count alike, so
   * the limit reveals nothing) from this IP, for the email from anywhere, and for the IP; refused
   * past any of the three limits.
   */
  attempt(identity: string | null, ip: string): Promise<SignInAttempt>;
  /** The attempt succeeded: the email's count from this IP restarts; the others take it back. */
  succeeded(identity: string | null, ip: string): Promise<void>;
}

// Decrements only a live counter: a DECR after the window ended would leave a key without TTL.
const TAKE_BACK = `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return 0`;

interface Counter {
  readonly key: string;
  readonly limit: number;
}

export function createSignInLimiter(options: SignInLimiterOptions): SignInLimiter {
  const { redis, keyPrefix } = options;
  const limits = options.limits ?? SIGN_IN_LIMITS;
  // Emails are kept as digests: Redis holds no personal data for a failed attempt.
  const accountKey = (identity: string) => `${keyPrefix}sign-in:account:${digestOf(identity.toLowerCase())}`;
  const pairKey = (identity: string, ip: string) =>
    `${keyPrefix}sign-in:account-ip:${digestOf(`${identity.toLowerCase()}\n${ip}`)}`;
  const ipCounter = (ip: string): Counter => ({ key: `${keyPrefix}sign-in:ip:${ip}`, limit: limits.perIp });

  /** Counts one more for each counter; refused when any is past its limit. */
  // One transaction per counter: each counter is its own key (and Cluster slot), counted atomically.
  async function count(counters: readonly Counter[]): Promise<SignInAttempt> {
    const results = await Promise.all(
      counters.map(({ key }) =>
        execAll(redis.multi().incr(key).pexpire(key, limits.windowMs, 'NX').pttl(key)),
      ),
    );
    return verdict(
      counters.map(({ limit }, i) => [Number(results[i]?.[0]) > limit, Number(results[i]?.[2])]),
    );
  }

  function verdict(counts: readonly (readonly [past: boolean, ttlMs: number])[]): SignInAttempt {
    let retryAfterMs = 0;
    for (const [past, ttl] of counts) {
      if (past) retryAfterMs = Math.max(retryAfterMs, ttl > 0 ? ttl : limits.windowMs);
    }
    return retryAfterMs === 0
      ? { allowed: true }
      : { allowed: false, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) };
  }

  return {
    async attempt(identity, ip) {
      const counters = [ipCounter(ip)];
      if (identity !== null) {
        counters.push({ key: pairKey(identity, ip), limit: limits.perAccountAndIp });
        counters.push({ key: accountKey(identity), limit: limits.perAccount });
      }
      return count(counters);
    },

    async succeeded(identity, ip) {
      const done: Promise<unknown>[] = [redis.eval(TAKE_BACK, 1, ipCounter(ip).key)];
      if (identity !== null)
        done.push(redis.del(pairKey(identity, ip)), redis.eval(TAKE_BACK, 1, accountKey(identity)));
      await Promise.all(done);
    },

    async checkIp(ip) {
      const { key, limit } = ipCounter(ip);
      const [counted, ttl] = await execAll(redis.multi().get(key).pttl(key));
      return verdict([[Number(counted ?? 0) >= limit, Number(ttl)]]);
    },

    failIp: (ip) => count([ipCounter(ip)]),
  };
}
