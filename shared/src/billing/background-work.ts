/**
 * Writes a settlement no longer makes its caller wait for (clearing an applied entry's markers and
 * closing it: the money already counts). `drain` waits for them: `billing.flush` and `close` call
 * it, so a clean shutdown leaves none behind; one a crash interrupts is finished by recovery.
 */
export class BackgroundWork {
  readonly #running = new Set<Promise<void>>();

  /** Runs `work` without waiting for it; a failure is passed to `onError`, never thrown. */
  track(work: Promise<unknown>, onError: (err: unknown) => void): void {
    const tracked: Promise<void> = work.then(
      () => undefined,
      (err: unknown) => onError(err),
    );
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
  }

  /** Resolves once everything tracked before and during the call has ended. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
