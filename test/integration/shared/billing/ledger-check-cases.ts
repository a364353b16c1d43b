/**
 * The ledger check as every store answers it, for the test files of each store: a consistent store
 * has no difference, sums are exact beyond 2^53 µIRT, and a wallet changed or deleted behind the
 * ledger is named; `scripts/ledger-check.ts` exits 0 or 1 accordingly.
 */
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { connectMongo } from '../../../../shared/src/store/mongodb/connect.ts';
import { type BillingFixture, freshId, runLedgerCheckScript } from './billing-fixture.ts';

const IRT = 1_000_000n;

export interface LedgerCheckFixtures<F extends BillingFixture> {
  /** A fresh fixture, closed after the test. */
  fixture(): Promise<F>;
  /** A fresh fixture with two accounts of 100 IRT, charged 1.234567 IRT three times each. */
  populated(): Promise<{ fx: F; accounts: string[] }>;
}

/** Fixtures made by `open` for the tests of one file, each closed after its test. */
export function ledgerCheckFixtures<F extends BillingFixture>(
  open: () => Promise<F>,
): LedgerCheckFixtures<F> {
  const opened: F[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((fx) => fx.close()));
  });
  const fixture = async () => {
    const fx = await open();
    opened.push(fx);
    return fx;
  };
  return {
    fixture,
    async populated() {
      const fx = await fixture();
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
    },
  };
}

/**
 * Changes a wallet behind the ledger, as a hand-made write would: through a second connection to
 * the SQLite file, or to the MongoDB database. `delta` null deletes the wallet.
 */
export async function tamperWallet(
  fx: Pick<BillingFixture, 'config'>,
  accountId: string,
  delta: bigint | null,
): Promise<void> {
  const { store } = fx.config;
  if (store.kind === 'sqlite') {
    const other = new DatabaseSync(store.path, { timeout: store.busyTimeoutMs });
    try {
      if (delta === null) other.prepare('DELETE FROM wallets WHERE account_id = ?').run(accountId);
      else
        other.prepare('UPDATE wallets SET balance = balance + ? WHERE account_id = ?').run(delta, accountId);
    } finally {
      other.close();
    }
    return;
  }
  const mongo = await connectMongo(store);
  try {
    const wallets = mongo.db.collection<{ _id: string }>('wallets');
    if (delta === null) await wallets.deleteOne({ _id: accountId });
    else await wallets.updateOne({ _id: accountId }, { $inc: { balance: delta } });
  } finally {
    await mongo.client.close();
  }
}

/** `checkLedger` on a consistent store, beyond 2^53, and on wallets changed or deleted behind it. */
export function checkLedgerCases(fixtures: LedgerCheckFixtures<BillingFixture>): void {
  it('finds nothing on a consistent store', async () => {
    const { fx } = await fixtures.populated();
    expect(await fx.billing.checkLedger()).toEqual([]);
  });

  it('sums exactly beyond 2^53 µIRT', async () => {
    const fx = await fixtures.fixture();
    const accountId = freshId('acct');
    await fx.billing.topUp({ accountId, amountMicros: 999_999_999_999_999_999n, idempotencyKey: 'a' });
    await fx.billing.topUp({ accountId, amountMicros: 1_500n, idempotencyKey: 'b' });
    expect(await fx.billing.balanceOf(accountId)).toBe(1_000_000_000_000_001_499n);
    expect(await fx.billing.checkLedger()).toEqual([]);
    await tamperWallet(fx, accountId, 1n);
    expect(await fx.billing.checkLedger()).toEqual([
      { accountId, balanceMicros: 1_000_000_000_000_001_500n, ledgerMicros: 1_000_000_000_000_001_499n },
    ]);
  });

  it('names a wallet whose balance was changed behind the ledger', async () => {
    const { fx, accounts } = await fixtures.populated();
    const [damaged] = accounts as [string];
    await tamperWallet(fx, damaged, 1n);
    expect(await fx.billing.checkLedger()).toEqual([
      {
        accountId: damaged,
        balanceMicros: 100n * IRT - 3n * 1_234_567n + 1n,
        ledgerMicros: 100n * IRT - 3n * 1_234_567n,
      },
    ]);
  });

  it('counts the entries of a wallet that was deleted', async () => {
    const { fx, accounts } = await fixtures.populated();
    await tamperWallet(fx, accounts[1] as string, null);
    expect(await fx.billing.checkLedger()).toEqual([
      { accountId: accounts[1], balanceMicros: 0n, ledgerMicros: 100n * IRT - 3n * 1_234_567n },
    ]);
  });
}

/** `scripts/ledger-check.ts`: exit 0 when consistent, 1 naming the account when not. */
export function ledgerCheckScriptCases(fixtures: LedgerCheckFixtures<BillingFixture>): void {
  it('exits 0 on a consistent store and 1, naming the account, on a corrupted one (--no-recover)', async () => {
    const { fx, accounts } = await fixtures.populated();
    const ok = await runLedgerCheckScript(fx);
    expect(ok.output).toMatch(/recovered 0 pending ledger entries/);
    expect(ok.output).toMatch(/ledger check: consistent/);
    expect(ok.code).toBe(0);

    await tamperWallet(fx, accounts[0] as string, -500_000n);
    const bad = await runLedgerCheckScript(fx, ['--no-recover']);
    // 100 − 3 × 1.234567 = 96.296299 in the ledger; the wallet lost another 0.5.
    expect(bad.output).toContain(
      `difference account=${accounts[0]} balance=95.796299 ledger=96.296299 delta=-0.5 IRT`,
    );
    expect(bad.output).toMatch(/ledger check: 1 wallet\(s\) differ/);
    expect(bad.output).not.toMatch(/recovered/);
    expect(bad.code).toBe(1);
  });
}
