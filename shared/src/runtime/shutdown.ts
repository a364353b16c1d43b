import type { Logger } from '../logging/logger.ts';

/**
 * Runs `close` once on the first SIGTERM or SIGINT, then exits 0; exits 1 when closing fails or
 * takes longer than `timeoutMs`. A second signal while closing forces the exit at once.
 */
export function closeOnSignals(logger: Logger, timeoutMs: number, close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal while closing: exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'closing gracefully');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'graceful close timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close().then(
      () => {
        logger.info('closed');
        logger.flush();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'graceful close failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** The most of the stop budget kept for closing (writing charges, closing connections). */
const CLOSING_RESERVE_MS = 5_000;

/**
 * How long work in flight may run after a stop signal before the process ends it: the budget
 * (`SHUTDOWN_TIMEOUT_MS`) less a reserve for closing, 5 s, or half a budget shorter than 10 s.
 */
export function inFlightGraceMs(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs - Math.min(CLOSING_RESERVE_MS, Math.floor(shutdownTimeoutMs / 2));
}

/** Prints a start-up failure (bad configuration, unreachable store) and exits non-zero. */
export function exitOnStartupFailure(processName: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${processName} failed to start: ${message}\n`);
  process.exit(1);
}
