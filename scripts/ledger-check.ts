import { createBilling } from '../shared/src/billing/billing.ts';
import { microsToIrt } from '../shared/src/billing/money.ts';
import { loadConfig } from '../shared/src/config/config.ts';
import { createLogger } from '../shared/src/logging/logger.ts';
import { createRedis } from '../shared/src/redis/redis.ts';
import { openStore } from '../shared/src/store/open-store.ts';

/**
 * `npm run ledger:check`: on the configured store (SQLite file, or MongoDB when `MONGO_URL` is set),
 * completes ledger entries a crash left pending for more than a minute (MongoDB only)
 * (unless `--no-recover`), then verifies every wallet against its ledger. One line per difference
 * and a summary on stdout; exit 1 on any difference (or failure), 0 when consistent.
 */
const RECOVER_OLDER_THAN_MS = 60_000;

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--no-recover');
  if (unknown.length > 0) throw new Error(`unknown arguments: ${unknown.join(' ')} (only --no-recover)`);
  const config = loadConfig(process.env);
  // stdout carries the report; the billing module's own log lines go to stderr.
  const logger = createLogger({ name: 'ledger-check', level: config.logLevel, destination: process.stderr });
  const store = await openStore(config.store, { logger });
  const redis = createRedis(config.redis.url, { connectionName: 'ledger-check' });
  try {
    const billing = createBilling({ money: store.money, redis, config, logger });
    if (!argv.includes('--no-recover')) {
      const recovered = await billing.recoverPendingEntries(RECOVER_OLDER_THAN_MS);
      console.log(`recovered ${recovered} pending ledger entries`);
    }
    const differences = await billing.checkLedger();
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
    await Promise.allSettled([store.close(), redis.quit()]);
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
