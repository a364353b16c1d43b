/**
 * The ledger check of the MongoDB money store: a wallet's balance is the sum of its applied entries
 * and of its pending ones whose marker it carries (counted in it, not yet recorded applied); it sums
 * in bigint (jongodb's `$sum` rounds past 2^53), and `ledger:check` first completes entries a crash
 * left pending.
 */
import { describe, expect, it } from 'vitest';
import { applyToTarget, LEASE_MS } from '../../../../../shared/src/store/mongodb/money/guarded-apply.ts';
import type { LedgerDoc } from '../../../../../shared/src/store/mongodb/money/ledger.mongo.ts';
import { markerOf } from '../../../../../shared/src/store/mongodb/money/pending-marker.ts';
import { freshId, runLedgerCheckScript } from '../../billing/billing-fixture.ts';
import {
  checkLedgerCases,
  ledgerCheckFixtures,
  ledgerCheckScriptCases,
} from '../../billing/ledger-check-cases.ts';
import { type MongoMoneyFixture, mongoMoneyFixture } from './mongo-money-fixture.ts';

const IRT = 1_000_000n;
const fixtures = ledgerCheckFixtures(() => mongoMoneyFixture());
const { populated } = fixtures;

function wallets(fx: MongoMoneyFixture) {
  return fx.db.collection<{ _id: string }>('wallets');
}

/** A charge as a driver inserts it, created and leased at `now` (then crashed, or still running). */
function pendingCharge(accountId: string, amount: bigint, now: Date, leaseMs = LEASE_MS): LedgerDoc {
  return {
    _id: freshId('req'),
    account_id: accountId,
    key_id: null,
    kind: 'charge',
    amount,
    model: 'demo/chat',
    usage: { requests: 1, input_tokens: 1, output_tokens: 1 },
    day: '2026-05-10',
    month: '2026-05',
    state: 'pending',
    open: true,
    lease_until: new Date(now.getTime() + leaseMs),
    created_at: now,
    reference: null,
  };
}

describe('checkLedger on MongoDB', () => {
  // Exact beyond 2^53 although jongodb's `$sum` rounds there: the store sums in bigint.
  checkLedgerCases(fixtures);

  it('counts a pending entry whose marker the wallet carries, and not one whose marker it lacks', async () => {
    const { fx, accounts } = await populated();
    const accountId = accounts[0] as string;
    const balance = await fx.billing.balanceOf(accountId);
    const entry = pendingCharge(accountId, -IRT, fx.clock());
    await fx.collections.ledger.insertPending(entry);
    // Inserted, not counted anywhere yet: nothing to add.
    expect(await fx.billing.checkLedger()).toEqual([]);
    await applyToTarget(fx.collections, entry, 'wallet');
    // Counted in the wallet, which carries its marker: the pending entry counts.
    expect(await fx.billing.balanceOf(accountId)).toBe(balance - IRT);
    expect(await fx.billing.checkLedger()).toEqual([]);
    // The same balance without the marker is a wallet changed behind the ledger.
    await wallets(fx).updateOne({ _id: accountId }, { $unset: { [`pending.${markerOf(entry._id)}`]: '' } });
    expect(await fx.billing.checkLedger()).toEqual([
      { accountId, balanceMicros: balance - IRT, ledgerMicros: balance },
    ]);
    // Put back, and completed by recovery: consistent again, the entry applied once.
    await wallets(fx).updateOne({ _id: accountId }, { $set: { [`pending.${markerOf(entry._id)}`]: true } });
    fx.clock.advance(LEASE_MS + 1);
    expect(await fx.billing.recoverPendingEntries(0)).toBe(1);
    expect(await fx.billing.balanceOf(accountId)).toBe(balance - IRT);
    expect(await fx.billing.checkLedger()).toEqual([]);
  });
});

describe('scripts/ledger-check.ts on MongoDB', () => {
  it('first completes entries a crash left pending for more than a minute', async () => {
    const { fx, accounts } = await populated();
    const accountId = accounts[0] as string;
    // The script runs on the real clock: created two minutes ago, its lease ran out a minute ago.
    const entry = pendingCharge(accountId, -IRT, new Date(Date.now() - 2 * 60_000), 60_000);
    await fx.collections.ledger.insertPending(entry);
    await applyToTarget(fx.collections, entry, 'wallet');
    const run = await runLedgerCheckScript(fx);
    expect(run.output).toMatch(/recovered 1 pending ledger entries/);
    expect(run.output).toMatch(/ledger check: consistent/);
    expect(run.code).toBe(0);
    expect(await fx.collections.ledger.findById(entry._id)).toMatchObject({ state: 'applied', open: false });
    expect(await fx.billing.balanceOf(accountId)).toBe(100n * IRT - 3n * 1_234_567n - IRT);
    expect((await fx.collections.wallets.findById(accountId))?.pending).toEqual({});
  });

  ledgerCheckScriptCases(fixtures);
});
