import { microsToIrt } from '../shared/src/billing/money.ts';
import { loadStoreToolConfig } from '../shared/src/config/config.ts';
import { createLogger } from '../shared/src/logging/logger.ts';
import { openStore } from '../shared/src/store/open-store.ts';

/**
 * `npm run ledger:check`: on the configured store (SQLite file, or MongoDB when `MONGO_URL` is set),
 * completes ledger entries a crash left pending for more than a minute (MongoDB only)
 * (unless `--no-recover`), then verifies every wallet against its ledger. One line per difference
 * and a summary on stdout; exit 1 on any difference (or failure), 0 when consistent.
 *
 * It reads the store only (no Redis, no S3 configured or needed). Redis's copies of what a
 * recovered entry changed (the wallet's balance, the key's month spend) are not refreshed here:
 * they are reloaded within their TTL (at most a hold lease), and the hold of an entry a crash
 * left pending was gone within its lease already.
 */
const RECOVER_OLDER_THAN_MS = 60_000;

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--no-recover');
  if (unknown.length > 0) throw new Error(`unknown arguments: ${unknown.join(' ')} (only --no-recover)`);
  const config = loadStoreToolConfig(process.env);
  // stdout carries the report; the store's own log lines go to stderr.
  const logger = createLogger({ name: 'ledger-check', level: config.logLevel, destination: process.stderr });
  const store = await openStore(config.store, { logger });
  try {
    if (!argv.includes('--no-recover')) {
      const recovered = await store.money.recoverEntries(new Date(Date.now() - RECOVER_OLDER_THAN_MS));
      console.log(`recovered ${recovered.length} pending ledger entries`);
    }
    const differences = await store.money.checkLedger();
    for (const d of differences) {
      const delta = microsToIrt(d.balanceMicros - d.ledgerMicros);
      console.log(
        `difference account=${d.accountId} balance=${microsToIrt(d.balanceMicros)} ledger=${microsToIrt(d.ledgerMicros)} delta=${delta} IRT`,
      );
    }
    const verdict = differences.length === 0 ? 'consistent' : `${differences.length} wallet(s) differ`;
    console.log(`ledger check: ${verdict}`);
    return differences.length === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`ledger check failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
