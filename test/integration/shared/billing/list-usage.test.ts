import { describe, expect, it } from 'vitest';
import { freshId, testClock, useBillingFixture } from './billing-fixture.ts';

// Billing zone: the default Asia/Tehran (UTC+03:30); a Tehran day starts at 20:30 UTC.
const clock = testClock('2026-05-12T08:00:00Z');
const fx = useBillingFixture({ clock });

const IRT = 1_000_000n;

async function settleAt(accountId: string, keyId: string, at: string, model: string, costMicros: bigint) {
  await fx.billing.settle({
    requestId: freshId('req'),
    accountId,
    keyId,
    model,
    costMicros,
    usage: { inputTokens: 10, outputTokens: 3 },
    at: new Date(at),
  });
}

describe('listUsage', () => {
  it('aggregates per Tehran day and model over all keys, across the day boundary', async () => {
    const accountId = freshId('acct');
    const [keyA, keyB] = [freshId('key'), freshId('key')];
    await fx.billing.topUp({ accountId, amountMicros: 1_000n * IRT, idempotencyKey: 'seed' });
    await settleAt(accountId, keyA, '2026-05-10T20:29:00Z', 'demo/chat', 1_500_000n); // Tehran 05-10 23:59
    await settleAt(accountId, keyB, '2026-05-10T20:31:00Z', 'demo/chat', 2_250_000n); // Tehran 05-11 00:01
    await settleAt(accountId, keyA, '2026-05-11T10:00:00Z', 'demo/chat', 250_000n); // Tehran 05-11
    await settleAt(accountId, keyB, '2026-05-11T10:00:00Z', 'demo/embed', 100n); // Tehran 05-11
    await settleAt(accountId, keyA, '2026-04-01T10:00:00Z', 'demo/chat', 9n * IRT); // out of window
    await settleAt(freshId('acct'), keyA, '2026-05-11T10:00:00Z', 'demo/chat', IRT); // another account

    const rows = await fx.billing.listUsage(accountId, 30);
    expect(rows).toEqual([
      { date: '2026-05-10', model: 'demo/chat', requests: 1, input_tokens: 10, output_tokens: 3, cost: 1.5 },
      { date: '2026-05-11', model: 'demo/chat', requests: 2, input_tokens: 20, output_tokens: 6, cost: 2.5 },
      {
        date: '2026-05-11',
        model: 'demo/embed',
        requests: 1,
        input_tokens: 10,
        output_tokens: 3,
        cost: 0.0001,
      },
    ]);
    // Today is 2026-05-12 in Tehran: 2 days back to 05-11; 1 day is today alone.
    expect((await fx.billing.listUsage(accountId, 2)).map((r) => r.date)).toEqual([
      '2026-05-11',
      '2026-05-11',
    ]);
    expect(await fx.billing.listUsage(accountId, 1)).toEqual([]);
    expect((await fx.billing.listUsage(accountId, 90)).map((r) => r.date)[0]).toBe('2026-04-01');
    // The window follows the `now` given, in the zone: 20:31 UTC on 05-10 is already 05-11.
    const atEdge = await fx.billing.listUsage(accountId, 1, new Date('2026-05-10T20:31:00Z'));
    expect(atEdge.map((r) => [r.date, r.model])).toEqual([
      ['2026-05-11', 'demo/chat'],
      ['2026-05-11', 'demo/embed'],
    ]);
  });

  it('refuses a window of less than one day', async () => {
    await expect(fx.billing.listUsage(freshId('acct'), 0)).rejects.toThrow(RangeError);
  });
});
