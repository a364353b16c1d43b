import type { ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import type { CredentialsRepository } from '../../../shared/src/accounts/credentials.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import type { MoneyStore } from '../../../shared/src/billing/money-store.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { Redis } from '../../../shared/src/redis/redis.ts';
import type { Store } from '../../../shared/src/store/store.ts';
import { revokePlaygroundKeys } from '../use-cases/revoke-playground-keys.ts';
import { createScryptHasher, type PasswordHasher } from './password-hasher.ts';
import { createSessionStore, type SessionStore } from './session-store.ts';
import { createSignInLimiter, type SignInLimiter } from './sign-in-limiter.ts';

/** docs/console.md: sessions slide over 12 hours of inactivity and end 30 days after sign-in. */
export const SESSION_LIFETIME = { idleMs: 12 * 3600 * 1000, maxAgeMs: 30 * 24 * 3600 * 1000 } as const;

/** What the console's endpoints use besides the API's own modules (accounts, billing, media). */
export interface ConsoleServices {
  readonly sessions: SessionStore;
  readonly limiter: SignInLimiter;
  readonly hasher: PasswordHasher;
  readonly credentials: CredentialsRepository;
  /** Reads the console needs from money beyond billing's: usage of any range, keys' spend and use. */
  readonly money: Pick<MoneyStore, 'listUsage' | 'keySpendsOf'>;
}

export interface ConsoleServicesDeps {
  readonly config: Pick<Config, 'queues'>;
  readonly redis: Redis;
  /** Where the sessions' playground keys are deleted when their session ends. */
  readonly keys: Pick<ApiKeysRepository, 'markDeleted'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly store: Pick<Store, 'credentials' | 'money'>;
  readonly clock: () => Date;
  /** Tests pass a cheaper or counting hasher. */
  readonly hasher?: PasswordHasher;
}

/** Wires the console's sessions (Redis, under `<QUEUE_PREFIX>:console:`), limiter and hasher. */
export function createConsoleServices(deps: ConsoleServicesDeps): ConsoleServices {
  const keyPrefix = `${deps.config.queues.prefix}:console:`;
  return {
    sessions: createSessionStore({
      redis: deps.redis,
      keyPrefix,
      ...SESSION_LIFETIME,
      clock: deps.clock,
      beforeEnd: (ending) => revokePlaygroundKeys(deps, ending),
    }),
    limiter: createSignInLimiter({ redis: deps.redis, keyPrefix }),
    hasher: deps.hasher ?? createScryptHasher(),
    credentials: deps.store.credentials,
    money: deps.store.money,
  };
}
