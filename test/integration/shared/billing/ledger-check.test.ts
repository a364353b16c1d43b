import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { applyToTarget } from '../../../../shared/src/billing/guarded-apply.ts';
import { testEnvironment } from '../../../helpers/test-config.ts';
import { type BillingFixture, billingFixture, freshId } from './billing-fixture.ts';

const IRT = 1_000_000n;
const opened: BillingFixture[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((fx) => fx.close()));
});

/** A database with two funded accounts, a few charges each. */
async function populated(): Promise<{ fx: BillingFixture; accounts: string[] }> {
  const fx = await billingFixture();
  opened.push(fx);
  const accounts = [freshId('acct'), freshId('acct')];
  for (const accountId of accounts) {
    await fx.billing.topUp({ accountId, amountMicros: 100n * IRT, idempotencyKey: 'seed' });
    for (let i = 0; i < 3; i++) {
      await fx.billing.settle({
        requestId: freshId('req'),
        accountId,
        keyId: 'key',
        model: 'demo/chat',
        costMicros: 1_234_567n,
        usage: { inputTokens: 1, outputTokens: 1 },
      });
    }
  }
  return { fx, accounts };
}

async function corrupt(fx: BillingFixture, accountId: string, delta: bigint): Promise<void> {
  await fx.db.collection('wallets').updateOne({ _id: accountId as never }, { $inc: { balance: delta } });
}

/** Runs the script as `npm run ledger:check` would, on this Node, against the fixture's database. */
async function runScript(
  fx: BillingFixture,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const env = testEnvironment({ MONGO_DB: fx.config.mongo.database, LOG_LEVEL: 'warn' });
  const child = spawn(process.execPath, ['scripts/ledger-check.ts', ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

describe('checkLedger', () => {
  it('finds nothing on a consistent database', async () => {
    const { fx } = await populated();
    expect(await fx.billing.checkLedger()).toEqual([]);
  });

  it("sums exactly beyond 2^53 µIRT (where jongodb's $sum would round)", async () => {
    const fx = await billingFixture();
    opened.push(fx);
    const accountId = freshId('acct');
    await fx.billing.topUp({ accountId, amountMicros: 999_999_999_999_999_999n, idempotencyKey: 'a' });
    await fx.billing.topUp({ accountId, amountMicros: 1_500n, idempotencyKey: 'b' });
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000_000_000_000_001_499n);
    expect(await fx.billing.checkLedger()).toEqual([]);
    await corrupt(fx, accountId, 1n);
    expect(await fx.billing.checkLedger()).toHaveLength(1);
  });

  it('names a wallet whose balance was changed behind the ledger', async () => {
    const { fx, accounts } = await populated();
    const [damaged] = accounts as [string];
    await corrupt(fx, damaged, 1n);
    expect(await fx.billing.checkLedger()).toEqual([
      {
        accountId: damaged,
        balanceMicros: 100n * IRT - 3n * 1_234_567n + 1n,
        ledgerMicros: 100n * IRT - 3n * 1_234_567n,
      },
    ]);
  });

  it('counts applied entries of a wallet that was deleted', async () => {
    const { fx, accounts } = await populated();
    await fx.db.collection('wallets').deleteOne({ _id: accounts[1] as never });
    expect(await fx.billing.checkLedger()).toMatchObject([{ accountId: accounts[1], balanceMicros: 0n }]);
  });
});

describe('scripts/ledger-check.ts', () => {
  it('exits 0 on a consistent database and 1, naming the account, on a corrupted one', async () => {
    const { fx, accounts } = await populated();
    const ok = await runScript(fx);
    expect(ok.output).toMatch(/recovered 0 pending ledger entries/);
    expect(ok.output).toMatch(/ledger check: consistent/);
    expect(ok.code).toBe(0);

    await corrupt(fx, accounts[0] as string, -500_000n);
    const bad = await runScript(fx, ['--no-recover']);
    // 100 − 3 × 1.234567 = 96.296299 in the ledger; the wallet lost another 0.5.
    expect(bad.output).toContain(
      `difference account=${accounts[0]} balance=95.796299 ledger=96.296299 delta=-0.5 IRT`,
    );
    expect(bad.output).toMatch(/ledger check: 1 wallet\(s\) differ/);
    expect(bad.output).not.toMatch(/recovered/);
    expect(bad.code).toBe(1);
  });

  it('first completes entries a crash left pending for more than a minute', async () => {
    const { fx, accounts } = await populated();
    const accountId = accounts[0] as string;
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
    const entry = {
      _id: freshId('req'),
      account_id: accountId,
      key_id: null,
      kind: 'charge' as const,
      amount: -IRT,
      model: 'demo/chat',
      usage: { requests: 1, input_tokens: 1, output_tokens: 1 },
      day: '2026-05-10',
      month: '2026-05',
      state: 'pending' as const,
      open: true,
      lease_until: minutesAgo(1),
      created_at: minutesAgo(2),
      reference: null,
    };
    await fx.deps.store.ledger.insertPending(entry);
    await applyToTarget(fx.deps.store, entry, 'wallet');
    const run = await runScript(fx);
    expect(run.output).toMatch(/recovered 1 pending ledger entries/);
    expect(run.code).toBe(0);
    expect(await fx.deps.store.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(100n * IRT - 3n * 1_234_567n - IRT);
  });

  it('refuses unknown arguments', async () => {
    const { fx } = await populated();
    const run = await runScript(fx, ['--frobnicate']);
    expect(run.output).toMatch(/unknown arguments/);
    expect(run.code).toBe(1);
  });
});
