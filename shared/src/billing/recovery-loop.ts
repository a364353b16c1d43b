import type { Logger } from '../logging/logger.ts';
import type { Billing } from './billing.ts';

/** How often, and past what age, a process re-drives ledger entries left pending or open. */
const RECOVERY_INTERVAL_MS = 60_000;

/**
 * Runs `recoverPendingEntries` every minute in the background (every api and worker process does;
 * claims keep two of them from driving one entry). Returns the function that stops it.
 */
export function startRecoveryLoop(
  billing: Pick<Billing, 'recoverPendingEntries'>,
  logger: Logger,
): () => void {
  const timer = setInterval(() => {
    billing
      .recoverPendingEntries(RECOVERY_INTERVAL_MS)
      .catch((err: unknown) => logger.error({ err }, 'recovering pending ledger entries failed'));
  }, RECOVERY_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
