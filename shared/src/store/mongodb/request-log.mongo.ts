import type { Collection, Db, Filter, IndexDescription } from 'mongodb';
import {
  decodeCursor,
  encodeCursor,
  type RequestLogPage,
  type RequestLogQuery,
  type RequestLogStore,
  type RetentionStep,
} from '../../request-log/request-log-store.ts';
import {
  isErrorRecord,
  parseRequestId,
  type RequestCompletion,
  type RequestOutcome,
  type RequestRecord,
  requestIdFloor,
} from '../../request-log/request-record.ts';

/** The stored form: the record in snake case; `_id` is the request id, which sorts by arrival. */
export interface RequestLogDoc {
  _id: string;
  /** Arrival, as a date: the TTL index deletes the record `REQUEST_LOG_RETENTION_DAYS` after it. */
  created_at: Date;
  account_id: string;
  key_id: string;
  key_last4: string;
  method: string;
  path: string;
  endpoint: string;
  model: string | null;
  provider: string | null;
  channel_id: string | null;
  attempts: number;
  status: number;
  error_code: string | null;
  outcome: RequestOutcome;
  /** 1 when the record counts for `status=error`. */
  err: 0 | 1;
  stream: boolean;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cost_micros: bigint;
  latency_ms: number;
  ttft_ms: number | null;
  ip: string | null;
  /** The media job the request started (videos only). */
  job_id?: string;
}

export const REQUEST_LOG_COLLECTION = 'request_log';

/** The collection's indexes; each names the query it serves. */
function requestLogIndexes(retentionSeconds: number): IndexDescription[] {
  return [
    // GET /admin/v1/requests?account_id= (and the holder's list): an account's page, newest first
    { key: { account_id: 1, _id: -1 }, name: 'account_id' },
    // GET /admin/v1/requests?key_id=: a key's page, newest first
    { key: { key_id: 1, _id: -1 }, name: 'key_id' },
    // GET /admin/v1/requests?model=: a model's page, newest first
    { key: { model: 1, _id: -1 }, name: 'model' },
    // GET /admin/v1/requests?status=error|<code> (with or without account_id): failed requests
    { key: { err: 1, account_id: 1, _id: -1 }, name: 'err_account_id' },
    // completeJob(): the record of the request that started a video job (videos only: sparse)
    { key: { job_id: 1 }, name: 'job_id', sparse: true },
    // retention: MongoDB deletes each record REQUEST_LOG_RETENTION_DAYS after its arrival
    { key: { created_at: 1 }, name: 'created_at_ttl', expireAfterSeconds: retentionSeconds },
  ];
}

/** The request log in its own collection of the service's database, indexes created (TTL set). */
export async function openMongoRequestLog(
  db: Db,
  options: { retentionDays: number; close?: () => Promise<void> },
): Promise<RequestLogStore> {
  const collection = db.collection<RequestLogDoc>(REQUEST_LOG_COLLECTION, { useBigInt64: true });
  const retentionSeconds = options.retentionDays * 24 * 3600;
  await ensureRetention(db, collection, retentionSeconds);
  await collection.createIndexes(requestLogIndexes(retentionSeconds));
  return new MongoRequestLog(collection, options.close ?? (async () => undefined));
}

/** A TTL index made under another retention is changed in place (collMod), or else made again. */
async function ensureRetention(
  db: Db,
  collection: Collection<RequestLogDoc>,
  retentionSeconds: number,
): Promise<void> {
  const existing = await collection.indexes().catch(() => []);
  const ttl = existing.find((index) => index.name === 'created_at_ttl');
  if (ttl === undefined || ttl.expireAfterSeconds === retentionSeconds) return;
  try {
    await db.command({
      collMod: REQUEST_LOG_COLLECTION,
      index: { name: 'created_at_ttl', expireAfterSeconds: retentionSeconds },
    });
  } catch {
    await collection.dropIndex('created_at_ttl').catch(() => undefined);
  }
}

class MongoRequestLog implements RequestLogStore {
  readonly kind = 'mongodb' as const;
  readonly #collection: Collection<RequestLogDoc>;
  readonly #close: () => Promise<void>;

  constructor(collection: Collection<RequestLogDoc>, close: () => Promise<void>) {
    this.#collection = collection;
    this.#close = close;
  }

  async insertMany(records: readonly RequestRecord[]): Promise<void> {
    const docs = records.filter((record) => parseRequestId(record.id) !== null).map(toDoc);
    if (docs.length === 0) return;
    // Unordered: a record already stored (a retried batch) fails alone, the others are written.
    await this.#collection.insertMany(docs, { ordered: false }).catch((err: unknown) => {
      if (!onlyDuplicates(err)) throw err;
    });
  }

  async completeJob(jobId: string, completion: RequestCompletion): Promise<boolean> {
    const set: Partial<RequestLogDoc> = {
      status: completion.status,
      outcome: completion.outcome,
      err: isErrorRecord(completion) ? 1 : 0,
      error_code: completion.errorCode,
      cost_micros: completion.costMicros,
    };
    if (completion.provider !== undefined) set.provider = completion.provider;
    if (completion.channelId !== undefined) set.channel_id = completion.channelId;
    if (completion.model !== undefined) set.model = completion.model;
    const result = await this.#collection.updateOne({ job_id: jobId }, { $set: set });
    return result.matchedCount === 1;
  }

  async findById(id: string): Promise<RequestRecord | null> {
    if (parseRequestId(id) === null) return null;
    const doc = await this.#collection.findOne({ _id: id });
    return doc === null ? null : fromDoc(doc);
  }

  async list(query: RequestLogQuery): Promise<RequestLogPage> {
    const filter: Filter<RequestLogDoc> = {};
    if (query.accountId !== undefined) filter.account_id = query.accountId;
    if (query.keyId !== undefined) filter.key_id = query.keyId;
    if (query.model !== undefined) filter.model = query.model;
    const status = query.status;
    if (status?.kind === 'ok') filter.err = 0;
    else if (status?.kind === 'error') filter.err = 1;
    else if (status?.kind === 'http') filter.status = status.status;
    else if (status?.kind === 'code') {
      filter.err = 1;
      filter.error_code = status.code;
    }
    const range: { $gte?: string; $lt?: string } = {};
    if (query.fromMs !== undefined) range.$gte = requestIdFloor(query.fromMs);
    const upper = [
      query.beforeMs === undefined ? undefined : requestIdFloor(query.beforeMs),
      query.cursor === undefined
        ? undefined
        : decodeCursor(query.cursor, (position) => parseRequestId(position) !== null),
    ].filter((bound) => bound !== undefined);
    if (upper.length > 0) range.$lt = upper.sort()[0] as string;
    if (range.$gte !== undefined || range.$lt !== undefined) filter._id = range;
    const docs = await this.#collection
      .find(filter)
      .sort({ _id: -1 })
      .limit(query.limit + 1)
      .toArray();
    const page = docs.slice(0, query.limit);
    const last = page.at(-1);
    return {
      records: page.map(fromDoc),
      nextCursor: docs.length > query.limit && last !== undefined ? encodeCursor(last._id) : null,
    };
  }

  async retentionStep(beforeMs: number, batch: number): Promise<RetentionStep> {
    const oldest = await this.#collection
      .find({ _id: { $lt: requestIdFloor(beforeMs) } }, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(batch)
      .toArray();
    if (oldest.length === 0) return { deleted: 0, more: false };
    const result = await this.#collection.deleteMany({ _id: { $in: oldest.map((doc) => doc._id) } });
    return { deleted: result.deletedCount, more: oldest.length === batch };
  }

  close(): Promise<void> {
    return this.#close();
  }
}

function toDoc(record: RequestRecord): RequestLogDoc {
  return {
    _id: record.id,
    created_at: new Date(record.createdMs),
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
    error_code: record.errorCode,
    outcome: record.outcome,
    err: isErrorRecord(record) ? 1 : 0,
    stream: record.stream,
    input_tokens: record.inputTokens,
    output_tokens: record.outputTokens,
    cached_tokens: record.cachedTokens,
    reasoning_tokens: record.reasoningTokens,
    cost_micros: record.costMicros,
    latency_ms: Math.max(0, Math.round(record.latencyMs)),
    ttft_ms: record.ttftMs === null ? null : Math.max(0, Math.round(record.ttftMs)),
    ip: record.ip,
    ...(record.jobId == null ? {} : { job_id: record.jobId }),
  };
}

function fromDoc(doc: RequestLogDoc): RequestRecord {
  return {
    id: doc._id,
    createdMs: parseRequestId(doc._id)?.ms ?? doc.created_at.getTime(),
    accountId: doc.account_id,
    keyId: doc.key_id,
    keyLast4: doc.key_last4,
    method: doc.method,
    path: doc.path,
    endpoint: doc.endpoint,
    model: doc.model,
    provider: doc.provider,
    channelId: doc.channel_id,
    attempts: doc.attempts,
    status: doc.status,
    errorCode: doc.error_code,
    outcome: doc.outcome,
    stream: doc.stream,
    inputTokens: doc.input_tokens,
    outputTokens: doc.output_tokens,
    cachedTokens: doc.cached_tokens,
    reasoningTokens: doc.reasoning_tokens,
    costMicros: BigInt(doc.cost_micros),
    latencyMs: doc.latency_ms,
    ttftMs: doc.ttft_ms,
    ip: doc.ip,
  };
}

/** An unordered insert whose every failure is a duplicate id (records written by an earlier try). */
function onlyDuplicates(err: unknown): boolean {
  const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors === undefined ? [] : [writeErrors];
  return (
    (err as { code?: unknown }).code === 11000 ||
    (list.length > 0 && list.every((e) => (e as { code?: unknown }).code === 11000))
  );
}
