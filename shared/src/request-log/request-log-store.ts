import type { RequestCompletion, RequestRecord } from './request-record.ts';

/** What `status=` keeps: answered in full, any error, one HTTP status, or one error code. */
export type StatusFilter =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error' }
  | { readonly kind: 'http'; readonly status: number }
  | { readonly kind: 'code'; readonly code: string };

/** One page of the log, newest first; every filter is optional and they combine. */
export interface RequestLogQuery {
  readonly accountId?: string | undefined;
  readonly keyId?: string | undefined;
  readonly model?: string | undefined;
  readonly status?: StatusFilter | undefined;
  /** Arrived at or after this Unix millisecond. */
  readonly fromMs?: number | undefined;
  /** Arrived before this Unix millisecond. */
  readonly beforeMs?: number | undefined;
  readonly limit: number;
  /** Where the previous page ended (its `nextCursor`), from this same store. */
  readonly cursor?: string | undefined;
}

export interface RequestLogPage {
  readonly records: readonly RequestRecord[];
  /** Null on the last page. Opaque: only this store's `list` reads it. */
  readonly nextCursor: string | null;
}

export interface RetentionStep {
  readonly deleted: number;
  readonly more: boolean;
}

/** A cursor this store did not make (or that was altered): the client's error, answered 400. */
export class InvalidCursorError extends Error {
  constructor() {
    super('The cursor is not one this service gave out.');
    this.name = 'InvalidCursorError';
  }
}

/**
 * The request log's storage (docs/request-log.md): SQLite in its own file (`REQUEST_LOG_PATH`), or
 * a MongoDB collection with a TTL index. Written in batches by the log's writer, never on a
 * request's path; read by id and by filtered, keyset-paginated pages.
 */
export interface RequestLogStore {
  readonly kind: 'sqlite' | 'mongodb';
  /** Writes records; a record whose id is already stored is left as it is. */
  insertMany(records: readonly RequestRecord[]): Promise<void>;
  /**
   * Completes the stored record of the request that started media job `jobId` (a video whose
   * render ended); false when no stored record names that job.
   */
  completeJob(jobId: string, completion: RequestCompletion): Promise<boolean>;
  findById(id: string): Promise<RequestRecord | null>;
  /** Throws InvalidCursorError for a cursor it did not make. */
  list(query: RequestLogQuery): Promise<RequestLogPage>;
  /**
   * One retention step, oldest first: deletes at most `batch` records that arrived before
   * `beforeMs` (MongoDB), or drops the oldest partition when all of it did (SQLite: a UTC day's
   * table, or part of a busy day's; `batch` is not used). Answers how many records went and
   * whether another step has more to delete.
   */
  retentionStep(beforeMs: number, batch: number): Promise<RetentionStep>;
  close(): Promise<void>;
}

/** Cursors of both stores: a version letter and the position, base64url. */
export function encodeCursor(position: string): string {
  return Buffer.from(`c1:${position}`, 'utf8').toString('base64url');
}

/** The position in a cursor of `encodeCursor`, checked by `valid`; else InvalidCursorError. */
export function decodeCursor(cursor: string, valid: (position: string) => boolean): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('c1:')) throw new InvalidCursorError();
  const position = text.slice(3);
  if (!valid(position)) throw new InvalidCursorError();
  return position;
}
