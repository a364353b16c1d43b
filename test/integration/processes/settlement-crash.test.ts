import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { billingKeys } from '../../../shared/src/billing/redis-keys.ts';
import { createRedis } from '../../../shared/src/redis/redis.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { adminPost, startApiProcess } from '../../helpers/api-process.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const running: SpawnedEntry[] = [];
afterEach(() => {
  for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
});

/** Sends chat requests from `loops` concurrent clients until `stop`; the ids of the 200 answers. */
async function chatUntil(
  origin: string,
  key: string,
  loops: number,
  stop: () => boolean,
): Promise<Set<string>> {
  const answered = new Set<string>();
  const body = JSON.stringify({ model: 'demo/chat', messages: [{ role: 'user', content: 'count me' }] });
  const loop = async () => {
    while (!stop()) {
      try {
        const res = await fetch(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        if (res.status === 200) answered.add(res.headers.get('x-request-id') ?? '');
      } catch {
        return; // the api is gone
      }
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  return answered;
}

describe('the api killed (SIGKILL) in the middle of settlement, on SQLite', () => {
  it('loses no committed charge, doubles none, checks clean after restart, and its holds expire', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = testEnvironment({
      PORT: String(port),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      HOLD_LEASE_MS: '1500',
      SETTLEMENT_FLUSH_MS: '20',
    });
    const sqlitePath = env.SQLITE_PATH as string;
    const { api } = await startApiProcess(env, port, running);
    const account = await adminPost<{ id: string }>(origin, '/accounts', { email: 'crash@example.test' });
    await adminPost(origin, `/accounts/${account.id}/topups`, { amount: 1_000_000 });
    const { key } = await adminPost<{ key: string }>(origin, `/accounts/${account.id}/keys`, {
      rate_limit: 3000,
    });

    // Kill it while charges are being answered and written: answers keep arriving until the kill.
    let killed = false;
    const load = chatUntil(origin, key, 12, () => killed);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    api.child.kill('SIGKILL');
    killed = true;
    await api.exited();
    const answered = await load;
    expect(answered.size).toBeGreaterThan(20);

    const db = new DatabaseSync(sqlitePath, { readOnly: true });
    const charges = db
      .prepare("SELECT id, amount FROM ledger WHERE account_id = ? AND kind = 'charge'")
      .all(account.id) as Array<{ id: string; amount: number }>;
    const wallet = db.prepare('SELECT balance FROM wallets WHERE account_id = ?').get(account.id) as {
      balance: number;
    };
    db.close();
    // Every charge written belongs to an answered request (none for a failed one), once each; the
    // ones still in memory at the kill are lost (an under-charge, never a double charge).
    expect(charges.length).toBeGreaterThan(0);
    for (const charge of charges) expect(answered.has(charge.id), charge.id).toBe(true);
    expect(new Set(charges.map((charge) => charge.id)).size).toBe(charges.length);
    const spent = charges.reduce((sum, charge) => sum - charge.amount, 0);
    expect(wallet.balance).toBe(1_000_000_000_000 - spent);

    const check = spawnEntry('scripts/ledger-check.ts', env);
    running.push(check);
    expect(await check.exited()).toEqual({ code: 0, signal: null });
    expect(check.output()).toContain('ledger check: consistent');

    // The holds of the requests in flight at the kill are no longer renewed: gone within the lease.
    await startApiProcess(env, port, running);
    const redis = createRedis(env.REDIS_URL as string);
    try {
      const holds = billingKeys(`${env.QUEUE_PREFIX}:billing:`).walletHolds(account.id).expiries;
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const live = await redis.zcount(holds, `(${Date.now()}`, '+inf');
      expect(live).toBe(0);
    } finally {
      redis.disconnect();
    }
    // Read through the operator API: the load may have used up the key's per-minute limit.
    const after = await fetch(`${origin}/admin/v1/accounts/${account.id}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(await after.json()).toMatchObject({ balance: (1_000_000_000_000 - spent) / 1_000_000 });
  });
});
