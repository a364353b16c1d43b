import { microsToIrt } from '../billing/money.ts';

/** How a request ended: answered in full, failed (before or after its status), or its client left. */
export type RequestOutcome = 'completed' | 'failed' | 'client_gone';
export const REQUEST_OUTCOMES: readonly RequestOutcome[] = ['completed', 'failed', 'client_gone'];

/**
 * One authenticated request, as the request log keeps it (docs/request-log.md). Nothing of what
 * was asked or answered (prompt, messages, output, media) is ever part of it.
 */
export interface RequestRecord {
  /** The request's `X-Request-Id` (`req_` + 9 base-36 digits of its millisecond + 16 random characters). */
  readonly id: string;
  /** When the request arrived, in Unix milliseconds (the id's time part). */
  readonly createdMs: number;
  readonly accountId: string;
  readonly keyId: string;
  readonly keyLast4: string;
  readonly method: string;
  /** The path without its query string (a key may travel in `?key=`). */
  readonly path: string;
  /** `chat`, `embeddings`, `images`, `speech`, `transcription`, `video`, `native:<provider>`, … */
  readonly endpoint: string;
  /** The model as answered; null when none was resolved. */
  readonly model: string | null;
  /** The provider that answered (or was tried last); null when no upstream was reached. */
  readonly provider: string | null;
  /** The upstream channel of that provider's attempt; null when it had none (the demo simulator). */
  readonly channelId: string | null;
  /** Upstream attempts made (fallbacks included). */
  readonly attempts: number;
  /** The HTTP status sent (a stream failing after its 200 keeps 200). */
  readonly status: number;
  /** The spec's error code, or null. */
  readonly errorCode: string | null;
  readonly outcome: RequestOutcome;
  readonly stream: boolean;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
  readonly reasoningTokens: number;
  /** What was charged, in µIRT (0 when nothing was); the answer's `service.cost`. */
  readonly costMicros: bigint;
  readonly latencyMs: number;
  /** Time to the first streamed output; null for answers that are not streams. */
  readonly ttftMs: number | null;
  readonly ip: string | null;
  /** The media job the request started (a video, completed when its render ends); never answered. */
  readonly jobId?: string | null;
}

/** What a render's end changes in a video's record (written at its 202). */
export interface RequestCompletion {
  readonly status: number;
  readonly outcome: RequestOutcome;
  readonly errorCode: string | null;
  readonly costMicros: bigint;
  readonly provider?: string | null;
  /** The channel that rendered it (a video's `operation.channelId`), when known. */
  readonly channelId?: string | null;
  readonly model?: string | null;
}

/** A request is an error for the `status=error` filter when it did not complete or was answered 4xx/5xx. */
export function isErrorRecord(record: Pick<RequestRecord, 'status' | 'outcome'>): boolean {
  return record.outcome !== 'completed' || record.status >= 400;
}

/** A request id's length: `req_`, 9 base-36 digits of its millisecond, 16 base64url characters. */
const ID_LENGTH = 29;
const TIME_END = 13;

/** The value of each base64url character (by its code), -1 for any other. */
const BASE64URL = (() => {
  const values = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let i = 0; i < alphabet.length; i += 1) values[alphabet.charCodeAt(i)] = i;
  return values;
})();

/**
 * The millisecond of a request id's time part, without checking the rest (the capture's one call
 * per request; `parseRequestId` validates the whole id where it is stored or looked up).
 */
export function requestIdMs(id: string): number | null {
  if (id.length !== ID_LENGTH || !id.startsWith('req_')) return null;
  const ms = Number.parseInt(id.slice(4, TIME_END), 36);
  return Number.isSafeInteger(ms) ? ms : null;
}

/** A base-36 digit's value (`0-9a-z`), -1 for any other character code. */
function base36(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  return code >= 97 && code <= 122 ? code - 87 : -1;
}

/**
 * The parts of a request id: its millisecond and its 12 random bytes; null for any other text.
 * Read character by character (the write thread's per-record call: no match array, no slices).
 */
export function parseRequestId(id: string): { readonly ms: number; readonly random: Buffer } | null {
  if (typeof id !== 'string' || id.length !== ID_LENGTH || !id.startsWith('req_')) return null;
  let ms = 0;
  for (let i = 4; i < TIME_END; i += 1) {
    const digit = base36(id.charCodeAt(i));
    if (digit < 0) return null;
    ms = ms * 36 + digit; // 36^9 < 2^53: always exact.
  }
  const random = Buffer.allocUnsafe(12);
  for (let i = TIME_END, at = 0; i < ID_LENGTH; i += 4, at += 3) {
    const a = BASE64URL[id.charCodeAt(i)] ?? -1;
    const b = BASE64URL[id.charCodeAt(i + 1)] ?? -1;
    const c = BASE64URL[id.charCodeAt(i + 2)] ?? -1;
    const d = BASE64URL[id.charCodeAt(i + 3)] ?? -1;
    if ((a | b | c | d) < 0) return null;
    const bits = (a << 18) | (b << 12) | (c << 6) | d;
    random[at] = bits >> 16;
    random[at + 1] = (bits >> 8) & 0xff;
    random[at + 2] = bits & 0xff;
  }
  return { ms, random };
}

/** The request id made of its parts (the inverse of `parseRequestId`). */
export function formatRequestId(ms: number, random: Uint8Array): string {
  return `req_${ms.toString(36).padStart(9, '0')}${Buffer.from(random).toString('base64url')}`;
}

/** The smallest id of a millisecond (ids sort by their time part first). */
export function requestIdFloor(ms: number): string {
  return `req_${Math.max(0, ms).toString(36).padStart(9, '0')}`;
}

/** The record as the API answers it (`object: "request"`). */
export function requestRecordObject(record: RequestRecord) {
  return {
    id: record.id,
    object: 'request' as const,
    created: Math.floor(record.createdMs / 1000),
    account_id: record.accountId,
    key_id: record.keyId,
    key_last4: record.keyLast4,
    method: record.method,
    path: record.path,
    endpoint: record.endpoint,
    model: record.model,
    provider: record.provider,
    channel_id: record.channelId,
    attempts: record.attempts,
    status: record.status,
    error_code: wireErrorCode(record.errorCode),
    outcome: record.outcome,
    stream: record.stream,
    input_tokens: record.inputTokens,
    output_tokens: record.outputTokens,
    cached_tokens: record.cachedTokens,
    reasoning_tokens: record.reasoningTokens,
    cost: microsToIrt(record.costMicros),
    latency_ms: record.latencyMs,
    ttft_ms: record.ttftMs,
    ip: record.ip,
  };
}

export type RequestRecordObject = ReturnType<typeof requestRecordObject>;

/** A mid-stream error's code is the provider's HTTP status, a number in the spec: kept a number. */
function wireErrorCode(code: string | null): string | number | null {
  return code !== null && /^\d{3}$/.test(code) ? Number(code) : code;
}
