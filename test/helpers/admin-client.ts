import type { FastifyInstance } from 'fastify';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface CreatedKey {
  readonly accountId: string;
  readonly keyId: string;
  readonly key: string;
}

/** Calls the operator API of an app built with `ADMIN_TOKEN=TEST_ADMIN_TOKEN`; fails the test on a non-2xx. */
export async function admin<T = Record<string, unknown>>(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<T> {
  const res = await app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  if (res.statusCode >= 300)
    throw new Error(`admin ${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return (res.body === '' ? {} : res.json()) as T;
}

let counter = 0;

/** A new account with `topUp` Toman in its wallet and one key with the given settings. */
export async function createFundedKey(
  app: FastifyInstance,
  options: { topUp?: number; settings?: Record<string, unknown> } = {},
): Promise<CreatedKey> {
  counter += 1;
  const account = await admin<{ id: string }>(app, 'POST', '/accounts', {
    email: `user${counter}-${Date.now()}@example.test`,
  });
  if ((options.topUp ?? 0) > 0)
    await admin(app, 'POST', `/accounts/${account.id}/topups`, { amount: options.topUp });
  const created = await admin<{ id: string; key: string }>(
    app,
    'POST',
    `/accounts/${account.id}/keys`,
    options.settings ?? {},
  );
  return { accountId: account.id, keyId: created.id, key: created.key };
}
