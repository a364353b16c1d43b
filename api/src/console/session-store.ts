import { createHash, randomBytes } from 'node:crypto';
import type { ChainableCommander } from 'ioredis';
import type { Redis } from '../../../shared/src/redis/redis.ts';

/** Who a console session belongs to. */
export type ConsoleRole = 'holder' | 'operator';

/** A console session as kept in Redis. */
export interface ConsoleSession {
  readonly role: ConsoleRole;
  /** The holder's account; null for an operator. */
  readonly accountId: string | null;
  /** The value every state-changing call must send as `X-CSRF-Token`. */
  readonly csrfToken: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms: the session ends then, however active (docs/console.md: at most 30 days). */
  readonly expiresAt: number;
  /** Operators: the SHA-256 of the ADMIN_TOKEN signed in with; a rotated token ends the session. */
  readonly operatorTokenDigest: string | null;
  /** Holders: the key the console made for this session's playground, once it made one. */
  readonly playground?: PlaygroundKeyRef;
}

/**
 * Which key a session's playground uses: its id (to revoke it when the session ends) and the
 * generation its secret was derived with (playground-secret.ts; the secret itself is never stored).
 */
export interface PlaygroundKeyRef {
  readonly keyId: string;
  readonly generation: number;
}

export interface SessionStoreOptions {
  readonly redis: Redis;
  /** `<QUEUE_PREFIX>:console:` */
  readonly keyPrefix: string;
  /** A session unused this long ends (sliding; 12 hours). */
  readonly idleMs: number;
  /** A session ends this long after sign-in whatever happens (30 days). */
  readonly maxAgeMs: number;
  readonly clock: () => Date;
  /**
   * Runs before sessions end (sign-out, sign out everywhere, a password set or changed, the 30-day
   * end), with the sessions ending: revokes their playground keys. A failure stops the ending, so a
   * session never ends with its key still working; a session that only idles out leaves its key to
   * its own short expiry.
   */
  readonly beforeEnd?: (ending: readonly ConsoleSession[]) => Promise<void>;
}

/**
 * Console sessions in Redis: `<prefix>session:<sha256(token)>` holds the session (the token itself,
 * which the cookie carries, is never stored), with a TTL renewed by every use; each account's
 * sessions are also listed in `<prefix>account-sessions:<account id>` so that all of them can end.
 */
export interface SessionStore {
  /** Opens a session; answers the token for the cookie. */
  create(input: Pick<ConsoleSession, 'role' | 'accountId' | 'operatorTokenDigest'>): Promise<{
    token: string;
    session: ConsoleSession;
  }>;
  /** The live session of a token (renewing its idle time), or null. */
  find(token: string): Promise<ConsoleSession | null>;
  /** Ends one session. */
  end(token: string): Promise<void>;
  /** Ends every session of an account, except the one of `keepToken` when given. */
  endAllOf(accountId: string, keepToken?: string): Promise<void>;
  /** Records the session's playground key (a session that ended meanwhile stays ended). */
  setPlaygroundKey(token: string, ref: PlaygroundKeyRef): Promise<void>;
}

const TOKEN_BYTES = 32;

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis, keyPrefix, idleMs, maxAgeMs, clock } = options;
  const beforeEnd = options.beforeEnd ?? (async () => undefined);
  const sessionKey = (digest: string) => `${keyPrefix}session:${digest}`;
  const accountKey = (accountId: string) => `${keyPrefix}account-sessions:${accountId}`;

  return {
    async create(input) {
      const token = randomBytes(TOKEN_BYTES).toString('base64url');
      const now = clock().getTime();
      const session: ConsoleSession = {
        ...input,
        csrfToken: randomBytes(TOKEN_BYTES).toString('base64url'),
        createdAt: now,
        expiresAt: now + maxAgeMs,
      };
      const digest = digestOf(token);
      // The account's index first, then the session: a session is never live unindexed (a digest
      // indexed without its session is skipped). Two keys, two slots on a Cluster: no transaction.
      if (session.accountId !== null) {
        const index = accountKey(session.accountId);
        await execAll(redis.multi().sadd(index, digest).pexpire(index, maxAgeMs));
      }
      await redis.set(sessionKey(digest), JSON.stringify(session), 'PX', idleMs);
      return { token, session };
    },

    async find(token) {
      if (token === '' || token.length > 128) return null;
      const digest = digestOf(token);
      // GETEX renews the idle time in the same command; the absolute end is checked here.
      const stored = await redis.getex(sessionKey(digest), 'PX', idleMs);
      if (stored === null) return null;
      const session = JSON.parse(stored) as ConsoleSession;
      if (clock().getTime() < session.expiresAt) return session;
      await beforeEnd([session]);
      await forget(digest, session.accountId);
      return null;
    },

    async end(token) {
      const digest = digestOf(token);
      const stored = await redis.get(sessionKey(digest));
      const session = stored === null ? null : (JSON.parse(stored) as ConsoleSession);
      if (session !== null) await beforeEnd([session]);
      await forget(digest, session?.accountId ?? null);
    },

    async endAllOf(accountId, keepToken) {
      const keep = keepToken === undefined ? undefined : digestOf(keepToken);
      const digests = await redis.smembers(accountKey(accountId));
      const ending = digests.filter((digest) => digest !== keep);
      if (ending.length === 0) return;
      // One key per command: the sessions live on different Cluster slots.
      const stored = await Promise.all(ending.map((digest) => redis.get(sessionKey(digest))));
      await beforeEnd(stored.flatMap((text) => (text === null ? [] : [JSON.parse(text) as ConsoleSession])));
      await Promise.all(ending.map((digest) => redis.del(sessionKey(digest))));
      await redis.srem(accountKey(accountId), ...ending);
    },

    async setPlaygroundKey(token, ref) {
      const key = sessionKey(digestOf(token));
      const stored = await redis.get(key);
      if (stored === null) return;
      const session: ConsoleSession = { ...(JSON.parse(stored) as ConsoleSession), playground: ref };
      // XX: never brings back a session that ended meanwhile; KEEPTTL: its idle time runs on.
      await redis.set(key, JSON.stringify(session), 'KEEPTTL', 'XX');
    },
  };

  async function forget(digest: string, accountId: string | null): Promise<void> {
    // The session first, then its index entry (as endAllOf).
    await redis.del(sessionKey(digest));
    if (accountId !== null) await redis.srem(accountKey(accountId), digest);
  }
}

/** Runs a MULTI and throws the first command's error (ioredis reports them per command). */
export async function execAll(multi: ChainableCommander): Promise<unknown[]> {
  const results = (await multi.exec()) ?? [];
  const failed = results.find(([err]) => err !== null);
  if (failed !== undefined) throw failed[0];
  return results.map(([, value]) => value);
}

/** SHA-256 of a secret token, hex: what Redis and the store keep instead of the token. */
export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
