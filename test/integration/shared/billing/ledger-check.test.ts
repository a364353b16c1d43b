/**
 * The ledger check on the default store (SQLite): every wallet's balance must equal the sum of its
 * ledger entries; a wallet changed behind the ledger (by another connection to the file) is named.
 * (The MongoDB store's check, with pending entries and markers:
 * test/integration/shared/store/mongodb/money-ledger-check.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { billingFixture, runLedgerCheckScript } from './billing-fixture.ts';
import { checkLedgerCases, ledgerCheckFixtures, ledgerCheckScriptCases } from './ledger-check-cases.ts';

const fixtures = ledgerCheckFixtures(() => billingFixture());

describe('checkLedger', () => {
  checkLedgerCases(fixtures);
});

describe('scripts/ledger-check.ts', () => {
  // Nothing is ever left pending on SQLite (one transaction per charge batch): recovery finds none.
  ledgerCheckScriptCases(fixtures);

  it('needs the store only: SQLITE_PATH alone, no REDIS_URL', async () => {
    const { fx } = await fixtures.populated();
    const run = await runLedgerCheckScript(fx, [], { storeOnly: true });
    expect(run.output).toMatch(/recovered 0 pending ledger entries/);
    expect(run.output).toMatch(/ledger check: consistent/);
    expect(run.code).toBe(0);
  });

  it('refuses unknown arguments', async () => {
    const { fx } = await fixtures.populated();
    const run = await runLedgerCheckScript(fx, ['--frobnicate']);
    expect(run.output).toMatch(/unknown arguments/);
    expect(run.code).toBe(1);
  });
});
