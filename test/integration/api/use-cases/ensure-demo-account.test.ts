import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoAccount } from '../../../../api/src/use-cases/ensure-demo-account.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('ensureDemoAccount', () => {
  it('makes the account, credit and key once, and returns a saved key that still works', async () => {
    const deps = { ...t.services.accounts, billing: t.services.billing };
    const input = { email: 'demo@gateway.local', creditMicros: 1_000_000_000_000n, savedKey: undefined };
    const first = await ensureDemoAccount(deps, input);
    expect(first.key).toMatch(/^hk-/);
    expect(first.newKey).toBe(true);

    const again = await ensureDemoAccount(deps, { ...input, savedKey: first.key });
    expect(again).toEqual({ accountId: first.accountId, key: first.key, newKey: false });
    expect(await t.services.billing.balanceOf(first.accountId)).toBe(1_000_000_000_000n);

    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/balance',
      headers: { authorization: `Bearer ${first.key}` },
    });
    expect(res.json()).toMatchObject({ balance: 1_000_000 });
  });

  it('makes a new key when the saved one no longer works', async () => {
    const deps = { ...t.services.accounts, billing: t.services.billing };
    const input = {
      email: 'demo2@gateway.local',
      creditMicros: 5_000_000n,
      savedKey: 'hk-not-a-key-of-this-account',
    };
    const result = await ensureDemoAccount(deps, input);
    expect(result.newKey).toBe(true);
    expect(result.key).not.toBe(input.savedKey);
    expect(await t.services.billing.checkLedger()).toEqual([]);
  });
});
