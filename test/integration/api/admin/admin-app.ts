import Fastify, { type FastifyInstance } from 'fastify';
import { createSignInLimiter } from '../../../../api/src/console/sign-in-limiter.ts';
import { registerErrorHandling } from '../../../../api/src/plugins/error-handler.ts';
import { adminAccountsRoutes } from '../../../../api/src/routes/admin/accounts.route.ts';
import { adminKeysRoutes } from '../../../../api/src/routes/admin/keys.route.ts';
import { keyCacheChannel } from '../../../../shared/src/accounts/accounts.ts';
import { createKeyCache, type KeyCache } from '../../../../shared/src/accounts/key-cache.ts';
import { type AccountStores, openAccountStores } from '../../shared/accounts/account-stores.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** The admin plugins on a bare Fastify app, on the test stores, as `buildApp` will register them. */
export interface AdminApp {
  readonly app: FastifyInstance;
  readonly stores: AccountStores;
  readonly keyCache: KeyCache;
  /** A second replica's key cache on the same channel. */
  otherReplica(): Promise<KeyCache>;
  /** Balances the stub wallet answers, in µIRT (0 for any other account). */
  readonly balances: Map<string, bigint>;
  close(): Promise<void>;
}

export async function buildAdminApp(options: { adminToken?: string | undefined } = {}): Promise<AdminApp> {
  const adminToken = 'adminToken' in options ? options.adminToken : ADMIN_TOKEN;
  const stores = await openAccountStores();
  const channel = keyCacheChannel(stores.config.queues.prefix);
  const caches: KeyCache[] = [];
  const newCache = async () => {
    const cache = createKeyCache({ ...stores, subscriber: stores.newRedis(), ttlMs: 60_000, channel });
    await cache.start();
    caches.push(cache);
    return cache;
  };
  const keyCache = await newCache();
  const balances = new Map<string, bigint>();
  const balanceOf = async (accountId: string) => balances.get(accountId) ?? 0n;

  const app = Fastify();
  registerErrorHandling(app);
  // The api's own limiter of wrong tokens, on the test Redis under the stores' fresh prefix.
  const tokenLimiter = createSignInLimiter({
    redis: stores.redis,
    keyPrefix: `${stores.config.queues.prefix}:console:`,
  });
  const deps = {
    adminToken,
    tokenLimiter,
    accounts: stores.accounts,
    keys: stores.keys,
    keyCache,
    balanceOf,
  };
  await app.register(adminAccountsRoutes, { prefix: '/admin/v1', ...deps });
  await app.register(adminKeysRoutes, { prefix: '/admin/v1', ...deps });
  await app.ready();
  return {
    app,
    stores,
    keyCache,
    balances,
    otherReplica: newCache,
    async close() {
      await app.close();
      await Promise.all(caches.map((cache) => cache.close()));
      await stores.close();
    },
  };
}

/** Headers of an authorized admin request. */
export const auth = { authorization: `Bearer ${ADMIN_TOKEN}` } as const;

/** Creates an account through the API and answers its id. */
export async function newAccount(
  app: FastifyInstance,
  email = `${Math.random().toString(36).slice(2)}@example.com`,
) {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: auth,
    payload: { email },
  });
  if (res.statusCode !== 201) throw new Error(`account not created: ${res.body}`);
  return res.json<{ id: string }>().id;
}
