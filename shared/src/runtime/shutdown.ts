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

/** Prints a start-up failure (bad configuration, unreachable store) and exits non-zero. */
export function exitOnStartupFailure(processName: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${processName} failed to start: ${message}\n`);
  process.exit(1);
}
