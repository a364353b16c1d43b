/**
 * A Sentinel-managed primary killed under load (SIGKILL of the redis-server this test started):
 * while the sentinels elect the replica, requests that need Redis answer 503 `upstream_error` with
 * `Retry-After`, never a 500; once the new primary answers the api serves again by itself (no
 * restart); every 200 is charged exactly once (the ledger adds up, `ledger:check`'s check), no hold
 * outlives its lease, and a rate window counted after the failover is exact.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LocalSentinelGroup,
  sentinelPrimaryOf,
  startSentinelGroup,
} from '../../../../infra/local-services/redis-topologies.ts';
import { billingKeys } from '../../../../shared/src/billing/redis-keys.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

const LEASE_MS = 2_000;
let group: LocalSentinelGroup;
let t: TestApp;

beforeAll(async () => {
  group = await startSentinelGroup({ downAfterMs: 1_000, failoverTimeoutMs: 5_000 });
  t = await buildTestApp({
    env: {
      REDIS_SENTINELS: group.sentinelNodes,
      REDIS_SENTINEL_MASTER: group.masterName,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      HOLD_LEASE_MS: String(LEASE_MS),
    },
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await group?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Sentinel failover under load', () => {
  it('503 with Retry-After while the primary fails over, then served again; charges and rate limits exact', async () => {
    expect(t.config.redis.mode).toBe('sentinel');
    const TOP_UP = 1_000_000;
    // One key per client, each paced below its rate limit (3 000 a minute at most).
    const users = await Promise.all(
      Array.from({ length: 6 }, () =>
        createFundedKey(t.app, { topUp: TOP_UP, settings: { rate_limit: 3_000 } }),
      ),
    );
    const chat = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        payload: { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] },
      });

    const answers: { at: number; user: number; res: LightMyRequestResponse }[] = [];
    let killedAt = 0;
    let stop = false;
    const loop = async (user: number) => {
      while (!stop) {
        answers.push({ at: Date.now(), user, res: await chat((users[user] as { key: string }).key) });
        await sleep(30);
      }
    };
    const clients = users.map((_, user) => loop(user));
    await sleep(800);
    killedAt = Date.now();
    group.primary.process.child.kill('SIGKILL');
    // Served again: a run of 200s after the kill.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const after = answers.filter((a) => a.at > killedAt);
      const lastTwenty = after.slice(-20);
      if (
        after.some((a) => a.res.statusCode === 503) &&
        lastTwenty.length === 20 &&
        lastTwenty.every((a) => a.res.statusCode === 200)
      )
        break;
      if (Date.now() > deadline) break;
      await sleep(100);
    }
    stop = true;
    await Promise.all(clients);

    expect(await sentinelPrimaryOf(group)).toBe(`127.0.0.1:${group.replica.port}`);
    const statuses = new Set(answers.map((a) => a.res.statusCode));
    expect([...statuses].sort()).toEqual([200, 503]);
    const refused = answers.filter((a) => a.res.statusCode === 503);
    for (const { res } of refused) {
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
    }
    expect(answers.slice(-20).every((a) => a.res.statusCode === 200)).toBe(true);
    expect(t.logs().some((line) => line.msg === 'request failed')).toBe(false);

    // Every 200 charged once, no 503 charged: the ledger and the wallet agree.
    await t.services.billing.flush();
    for (const [i, user] of users.entries()) {
      const served = answers.filter((a) => a.user === i && a.res.statusCode === 200);
      const entries = await t.services.billing.listLedger(user.accountId, { limit: 10_000 });
      const charges = entries.filter((entry) => entry.kind === 'charge');
      expect(charges).toHaveLength(served.length);
      expect(new Set(charges.map((c) => c.id)).size).toBe(charges.length);
      const charged = charges.reduce(
        (sum, c) => sum + (c.amountMicros < 0n ? -c.amountMicros : c.amountMicros),
        0n,
      );
      expect(charged).toBeGreaterThan(0n);
      expect(await t.services.billing.balanceOf(user.accountId)).toBe(BigInt(TOP_UP) * 1_000_000n - charged);
    }
    expect(await t.connections.store.money.checkLedger()).toEqual([]);

    // No hold outlives its lease: the holds left by the failover (a drop lost with the old primary,
    // a hold of a request refused mid-way) are gone once a lease has passed.
    await sleep(LEASE_MS + 500);
    for (const user of users) {
      const holds = billingKeys(`${t.config.queues.prefix}:billing:`).walletHolds(user.accountId);
      expect(await t.connections.redis.zrangebyscore(holds.expiries, Date.now(), '+inf')).toEqual([]);
    }

    // A fresh window after the failover: exactly its limit admitted.
    const fresh = await createFundedKey(t.app, { topUp: 1_000, settings: { rate_limit: 10 } });
    const balance = await Promise.all(
      Array.from({ length: 15 }, () =>
        t.app.inject({
          method: 'GET',
          url: '/v1/balance',
          headers: { authorization: `Bearer ${fresh.key}` },
        }),
      ),
    );
    expect(balance.filter((res) => res.statusCode === 200)).toHaveLength(10);
    expect(balance.filter((res) => res.statusCode === 429)).toHaveLength(5);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  }, 90_000);
});
