import { Readable } from 'node:stream';
import type { RequestLogQuery, RequestLogStore } from '../../../shared/src/request-log/request-log-store.ts';
import {
  type RequestRecordObject,
  requestRecordObject,
} from '../../../shared/src/request-log/request-record.ts';
import { requestRecordSchema } from '../schemas/request-record.schema.ts';

/** The most rows one export holds (a longer range is exported in parts, by date). */
export const CSV_MAX_ROWS = 1_000_000;
const PAGE = 200;

/** The record's fields in the order of its schema (the answer of `GET /v1/requests/{id}`), `object` aside. */
const COLUMNS = requestRecordSchema.required.filter(
  (name): name is Exclude<typeof name, 'object'> => name !== 'object',
) satisfies ReadonlyArray<keyof RequestRecordObject>;

/**
 * The records a query selects as CSV (RFC 4180, a header line first), streamed: read page by page
 * (keyset, 200 at a time) as the client reads, so an export of a long range holds one page in
 * memory. `created` is an ISO 8601 time in the file.
 */
export function requestsCsv(
  store: Pick<RequestLogStore, 'list'>,
  query: Omit<RequestLogQuery, 'limit' | 'cursor'>,
): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield `${COLUMNS.join(',')}\r\n`;
    let cursor: string | undefined;
    let rows = 0;
    do {
      const page = await store.list({ ...query, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
      let text = '';
      for (const record of page.records) text += `${csvLine(requestRecordObject(record))}\r\n`;
      if (text !== '') yield text;
      rows += page.records.length;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined && rows < CSV_MAX_ROWS);
  }
  return Readable.from(lines(), { objectMode: false });
}

function csvLine(record: RequestRecordObject): string {
  return COLUMNS.map((column) => {
    const value = column === 'created' ? new Date(record.created * 1000).toISOString() : record[column];
    return csvField(value);
  }).join(',');
}

function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // A leading =, +, - or @ would be a formula in a spreadsheet: quoted with a leading apostrophe.
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}
