import type { Redis } from '../../../shared/src/redis/redis.ts';
import { digestOf } from '../console/session-store.ts';

/** A sign-up waiting for its email to be confirmed: no account exists until then. */
export interface PendingSignUp {
  readonly email: string;
  readonly name: string | null;
  /** The password chosen at sign-up, hashed (scrypt) before it was stored. */
  readonly passwordHash: string;
}

/** docs/console.md: a verification link works 24 hours, once. */
export const SIGN_UP_LINK_LIFETIME_MS = 24 * 3600 * 1000;

/**
 * Pending sign-ups in Redis under `<QUEUE_PREFIX>:console:sign-up:<sha256(token)>`, expiring with
 * their link; the token itself is stored nowhere. `take` reads and deletes in one command (GETDEL),
 * so of concurrent uses of one link one gets it.
 */
export interface PendingSignUps {
  put(token: string, pending: PendingSignUp): Promise<void>;
  take(token: string): Promise<PendingSignUp | null>;
  /** Puts a taken sign-up back (its account could not be made for a passing fault). */
  restore(token: string, pending: PendingSignUp): Promise<void>;
}

export function createPendingSignUps(
  redis: Redis,
  keyPrefix: string,
  lifetimeMs = SIGN_UP_LINK_LIFETIME_MS,
): PendingSignUps {
  const keyOf = (token: string) => `${keyPrefix}sign-up:${digestOf(token)}`;
  return {
    async put(token, pending) {
      await redis.set(keyOf(token), JSON.stringify(pending), 'PX', lifetimeMs);
    },
    async take(token) {
      const stored = await redis.getdel(keyOf(token));
      return stored === null ? null : (JSON.parse(stored) as PendingSignUp);
    },
    async restore(token, pending) {
      await redis.set(keyOf(token), JSON.stringify(pending), 'PX', lifetimeMs, 'NX');
    },
  };
}
