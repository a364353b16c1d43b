import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import {
  InvalidCursorError,
  type RequestLogPage,
  type RequestLogQuery,
  type RequestLogStore,
} from '../../../shared/src/request-log/request-log-store.ts';
import { type RequestRecord, requestRecordObject } from '../../../shared/src/request-log/request-record.ts';
import { RequestLogUnavailableError } from '../../../shared/src/request-log/unavailable-request-log.ts';

/** Seconds a client is told to wait when the request log cannot be read. */
const RETRY_AFTER_SECONDS = 5;

/** The answer to a request log id nobody may see: unknown, or another account's (never told apart). */
export function requestNotFound(id: string): AppError {
  return new AppError(
    404,
    'invalid_request_error',
    'invalid_request_error',
    `No request \`${id.slice(0, 64)}\` was found for this account.`,
  );
}

/** A record by id, only when it is `accountId`'s (any account's when that is undefined). */
export async function findRequest(
  store: Pick<RequestLogStore, 'findById'>,
  id: string,
  accountId: string | undefined,
): Promise<RequestRecord> {
  const record = await reading(() => store.findById(id));
  if (record === null || (accountId !== undefined && record.accountId !== accountId))
    throw requestNotFound(id);
  return record;
}

/** A page of the log; a cursor the store did not make is the client's error (400). */
export function listRequests(
  store: Pick<RequestLogStore, 'list'>,
  query: RequestLogQuery,
): Promise<RequestLogPage> {
  return reading(() => store.list(query));
}

/** The page as the API answers it. */
export function requestListObject(page: RequestLogPage) {
  return {
    object: 'list' as const,
    data: page.records.map(requestRecordObject),
    next_cursor: page.nextCursor,
  };
}

async function reading<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof InvalidCursorError)
      throw errors.invalidRequest('`cursor` is not one this service gave out.');
    if (err instanceof RequestLogUnavailableError) throw errors.storeUnavailable(RETRY_AFTER_SECONDS);
    throw err;
  }
}
