/** Writes one line of the stack's own output, prefixed so it stands apart from the children's. */
export function stackLog(message: string): void {
  process.stdout.write(`[stack] ${message}\n`);
}

/** A failure whose message is meant for the user as it is (no stack trace). */
export class StackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StackError';
  }
}

/** The reason the stack stops when the user asked it to (a signal): it then exits 0. */
export class ShutdownRequest extends Error {
  readonly signal: NodeJS.Signals;
  constructor(signal: NodeJS.Signals) {
    super(`received ${signal}`);
    this.name = 'ShutdownRequest';
    this.signal = signal;
  }
}

/** Describes why the stack stops, for the user: a message, plus the stack trace of a real bug. */
export function describeFailure(reason: unknown): string {
  if (reason instanceof StackError || reason instanceof ShutdownRequest) return reason.message;
  if (reason instanceof Error) return reason.stack ?? reason.message;
  return String(reason);
}

/**
 * Hides the password of a connection string before it is printed; read by pattern rather than by
 * `new URL`, which refuses a MongoDB replica set's comma-separated hosts.
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?]*:)[^@/?]+@/i, '$1***@');
}
