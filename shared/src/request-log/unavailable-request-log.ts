import type { RequestLogStore } from './request-log-store.ts';

/** The request log's store could not be opened or reached: its records are lost (counted), reads 503. */
export class RequestLogUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the request log is unavailable', { cause });
    this.name = 'RequestLogUnavailableError';
  }
}

/**
 * The stand-in for a request log whose store could not be opened at start (an unwritable
 * `REQUEST_LOG_PATH`, MongoDB unreachable): every write fails (the writer counts the records as
 * dropped), every read answers RequestLogUnavailableError. Requests and money are untouched.
 */
export function unavailableRequestLog(kind: RequestLogStore['kind'], cause: unknown): RequestLogStore {
  const fail = async (): Promise<never> => {
    throw new RequestLogUnavailableError(cause);
  };
  return {
    kind,
    insertMany: fail,
    completeJob: fail,
    findById: fail,
    list: fail,
    retentionStep: async () => ({ deleted: 0, more: false }),
    close: async () => undefined,
  };
}
