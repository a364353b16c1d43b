/** A background pass run every interval, one at a time. */
export interface PassLoop<R> {
  /** Runs one pass now (after any pass under way); resolves with its report, null when skipped or failed. */
  runOnce(): Promise<R | null>;
  stop(): Promise<void>;
}

export interface PassLoopOptions {
  readonly intervalMs: number;
  /**
   * A Redis `SET NX PX` lets one replica's pass stand for every replica's within an interval;
   * without it, every pass runs.
   */
  readonly tryLock?: () => Promise<boolean>;
  /** Told of a pass that failed; the next interval tries again. */
  readonly onError: (err: unknown) => void;
}

/**
 * Runs `pass` every `intervalMs` after the previous one ended, never two at once. The timer does not
 * keep the process up; `stop` waits for a pass under way.
 */
export function startPassLoop<R>(pass: () => Promise<R>, options: PassLoopOptions): PassLoop<R> {
  const tryLock = options.tryLock ?? (async () => true);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<R | null> | null = null;
  let stopped = false;
  const locked = async (): Promise<R | null> => ((await tryLock()) ? pass() : null);
  const runOnce = (): Promise<R | null> => {
    if (running !== null) return running;
    running = locked()
      .catch((err: unknown) => {
        options.onError(err);
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void runOnce().finally(schedule), options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
