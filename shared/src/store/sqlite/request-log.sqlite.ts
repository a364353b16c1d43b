import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import {
  decodeCursor,
  encodeCursor,
  type RequestLogPage,
  type RequestLogQuery,
  type RequestLogStore,
} from '../../request-log/request-log-store.ts';
import {
  formatRequestId,
  isErrorRecord,
  parseRequestId,
  REQUEST_OUTCOMES,
  type RequestCompletion,
  type RequestOutcome,
  type RequestRecord,
} from '../../request-log/request-record.ts';
import { StoreOpenError } from './database.ts';

/**
 * The request log's schema, in its own file so the money file's write lock is never shared.
 * Compact by design (≤ 200 bytes a record at ten million rows, bench/REQUEST-LOG.md):
 * - `pos`, the rowid, is the request's millisecond × 4096 plus 12 bits of its id's random part:
 *   the table is stored in arrival order, `created` is not stored (it is `pos / 4096`), a date
 *   range is a rowid range, and a lookup by id scans the few rows of one millisecond (no index);
 * - `rnd` holds the id's other 12 random bytes, so the id is rebuilt from `pos` and `rnd`;
 * - every repeated string (account, model, provider, path, endpoint, error code, channel, ip,
 *   method) is a small integer into `names`, keys into `keys` (with their last 4 characters).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS names (
  id INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (kind, value)
);
CREATE TABLE IF NOT EXISTS keys (
  id INTEGER PRIMARY KEY,
  key_id TEXT NOT NULL UNIQUE,
  account INTEGER NOT NULL,
  last4 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
  pos INTEGER PRIMARY KEY,
  rnd BLOB NOT NULL,
  account INTEGER NOT NULL,
  key INTEGER NOT NULL,
  method INTEGER NOT NULL,
  path INTEGER NOT NULL,
  endpoint INTEGER NOT NULL,
  model INTEGER,
  provider INTEGER,
  channel INTEGER,
  attempts INTEGER NOT NULL,
  status INTEGER NOT NULL,
  error INTEGER,
  outcome INTEGER NOT NULL,
  err INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cached INTEGER NOT NULL,
  reasoning INTEGER NOT NULL,
  cost INTEGER NOT NULL,
  latency INTEGER NOT NULL,
  ttft INTEGER,
  ip INTEGER
);
-- completeJob(): the record of the request that started a video job (videos only: a small table).
CREATE TABLE IF NOT EXISTS jobs (
  job_id TEXT PRIMARY KEY,
  pos INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** The indexes, each for the query it names (the bench drops and remakes them around a bulk load). */
export const REQUEST_LOG_INDEXES = `
-- GET /admin/v1/requests?account_id= (and the holder's own list): an account's page, newest first.
CREATE INDEX IF NOT EXISTS requests_by_account ON requests (account);
-- GET /admin/v1/requests?key_id=: a key's page, newest first.
CREATE INDEX IF NOT EXISTS requests_by_key ON requests (key);
-- GET /admin/v1/requests?model=: a model's page, newest first.
CREATE INDEX IF NOT EXISTS requests_by_model ON requests (model);
-- GET /admin/v1/requests?status=error|<code> across accounts: only the failed requests are indexed.
CREATE INDEX IF NOT EXISTS requests_errors ON requests (err) WHERE err = 1;
-- GET /admin/v1/requests?account_id=&status=error|<code>: an account's failed requests.
CREATE INDEX IF NOT EXISTS requests_errors_by_account ON requests (account) WHERE err = 1;
`;

/** Kinds of `names`. */
const KIND = {
  account: 1,
  model: 2,
  provider: 3,
  path: 4,
  endpoint: 5,
  error: 6,
  channel: 7,
  ip: 8,
  method: 9,
} as const;
type Kind = (typeof KIND)[keyof typeof KIND];

/** Positions per millisecond; a collision of the 12 bits moves to the next free one. */
const PER_MS = 4096;
/** How far past its millisecond's positions a record may have moved on collisions. */
const SPILL = 64;

export interface SqliteRequestLogOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

interface Row {
  pos: number;
  rnd: Uint8Array;
  account: number;
  key: number;
  method: number;
  path: number;
  endpoint: number;
  model: number | null;
  provider: number | null;
  channel: number | null;
  attempts: number;
  status: number;
  error: number | null;
  outcome: number;
  stream: number;
  input: number;
  output: number;
  cached: number;
  reasoning: number;
  cost: number | bigint | string;
  latency: number;
  ttft: number | null;
  ip: number | null;
}

const COLUMNS =
  'pos, rnd, account, key, method, path, endpoint, model, provider, channel, attempts, status, error, outcome, err, stream, input, output, cached, reasoning, cost, latency, ttft, ip';

/** Read back with the cost as text: a µIRT amount may pass 2^53. */
const SELECTED = COLUMNS.replace('cost,', 'CAST(cost AS TEXT) AS cost,');

/** Opens (creating) the request log's own SQLite file. */
export function openSqliteRequestLog(options: SqliteRequestLogOptions): RequestLogStore {
  const path = options.path === ':memory:' ? options.path : resolve(options.path);
  let db: DatabaseSync;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new DatabaseSync(path, { timeout: options.busyTimeoutMs, readBigInts: false });
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // The pages new records land on (the end of each account's, key's and model's index range)
    // stay cached: 32 MiB of page cache, and the file mapped so reads cost no system call.
    db.exec('PRAGMA cache_size = -32768');
    db.exec('PRAGMA mmap_size = 1073741824');
    db.exec(SCHEMA);
    db.exec(REQUEST_LOG_INDEXES);
  } catch (err) {
    throw new StoreOpenError(path, err);
  }
  return new SqliteRequestLog(db);
}

class SqliteRequestLog implements RequestLogStore {
  readonly kind = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #ids = new Map<string, number>();
  readonly #values = new Map<number, string>();
  readonly #keyIds = new Map<string, number>();
  readonly #keys = new Map<number, { keyId: string; account: number; last4: string }>();
  readonly #insert: StatementSync;
  readonly #rndAt: StatementSync;
  readonly #nameInsert: StatementSync;
  readonly #nameSelect: StatementSync;
  readonly #nameById: StatementSync;
  readonly #keyInsert: StatementSync;
  readonly #keySelect: StatementSync;
  readonly #keyById: StatementSync;
  readonly #byId: StatementSync;
  readonly #oldest: StatementSync;
  readonly #deleteUpTo: StatementSync;
  readonly #jobInsert: StatementSync;
  readonly #jobsDeleteUpTo: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT OR IGNORE INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(', ')
        .map(() => '?')
        .join(', ')})`,
    );
    this.#rndAt = db.prepare('SELECT rnd FROM requests WHERE pos = ?');
    this.#nameInsert = db.prepare('INSERT OR IGNORE INTO names (kind, value) VALUES (?, ?)');
    this.#nameSelect = db.prepare('SELECT id FROM names WHERE kind = ? AND value = ?');
    this.#nameById = db.prepare('SELECT value FROM names WHERE id = ?');
    this.#keyInsert = db.prepare('INSERT OR IGNORE INTO keys (key_id, account, last4) VALUES (?, ?, ?)');
    this.#keySelect = db.prepare('SELECT id, account, last4 FROM keys WHERE key_id = ?');
    this.#keyById = db.prepare('SELECT key_id, account, last4 FROM keys WHERE id = ?');
    this.#byId = db.prepare(`SELECT ${SELECTED} FROM requests WHERE pos BETWEEN ? AND ? AND rnd = ?`);
    this.#oldest = db.prepare('SELECT pos FROM requests WHERE pos < ? ORDER BY pos LIMIT 1 OFFSET ?');
    this.#deleteUpTo = db.prepare('DELETE FROM requests WHERE pos <= ?');
    this.#jobInsert = db.prepare('INSERT OR IGNORE INTO jobs (job_id, pos) VALUES (?, ?)');
    this.#jobsDeleteUpTo = db.prepare('DELETE FROM jobs WHERE pos <= ?');
  }

  async insertMany(records: readonly RequestRecord[]): Promise<void> {
    this.insertNow(records);
  }

  /** The synchronous write of a batch, in one transaction (the bench calls it directly). */
  insertNow(records: readonly RequestRecord[]): void {
    const db = this.#db;
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const record of records) this.#insertOne(record);
      db.exec('COMMIT');
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      // A name or key written inside the rolled-back transaction is not in the file.
      this.#forgetNames();
      throw err;
    }
  }

  #insertOne(record: RequestRecord): void {
    const parsed = parseRequestId(record.id);
    if (parsed === null) return; // Only the service's own ids are logged.
    const { ms, random } = parsed;
    const account = this.#name(KIND.account, record.accountId);
    const values = [
      random,
      account,
      this.#key(record.keyId, account, record.keyLast4),
      this.#name(KIND.method, record.method),
      this.#name(KIND.path, record.path),
      this.#name(KIND.endpoint, record.endpoint),
      this.#nullableName(KIND.model, record.model),
      this.#nullableName(KIND.provider, record.provider),
      this.#nullableName(KIND.channel, record.channelId),
      record.attempts,
      record.status,
      this.#nullableName(KIND.error, record.errorCode),
      REQUEST_OUTCOMES.indexOf(record.outcome),
      isErrorRecord(record) ? 1 : 0,
      record.stream ? 1 : 0,
      record.inputTokens,
      record.outputTokens,
      record.cachedTokens,
      record.reasoningTokens,
      record.costMicros,
      Math.max(0, Math.round(record.latencyMs)),
      record.ttftMs === null ? null : Math.max(0, Math.round(record.ttftMs)),
      this.#nullableName(KIND.ip, record.ip),
    ] as const;
    let pos = ms * PER_MS + ((random[0] as number) << 4) + ((random[1] as number) >> 4);
    for (let tries = 0; tries < SPILL; tries += 1, pos += 1) {
      if (Number(this.#insert.run(pos, ...values).changes) === 1) {
        if (record.jobId != null) this.#jobInsert.run(record.jobId, pos);
        return;
      }
      const taken = this.#rndAt.get(pos) as { rnd: Uint8Array } | undefined;
      if (taken !== undefined && Buffer.from(taken.rnd).equals(random)) return; // Already written.
    }
  }

  async completeJob(jobId: string, completion: RequestCompletion): Promise<boolean> {
    const found = this.#db.prepare('SELECT pos FROM jobs WHERE job_id = ?').get(jobId) as
      | { pos: number }
      | undefined;
    if (found === undefined) return false;
    const sets = ['status = ?', 'outcome = ?', 'err = ?', 'error = ?', 'cost = ?'];
    const values: Array<number | bigint | null> = [
      completion.status,
      REQUEST_OUTCOMES.indexOf(completion.outcome),
      isErrorRecord(completion) ? 1 : 0,
      this.#nullableName(KIND.error, completion.errorCode),
      completion.costMicros,
    ];
    if (completion.provider !== undefined) {
      sets.push('provider = ?');
      values.push(this.#nullableName(KIND.provider, completion.provider));
    }
    if (completion.channelId !== undefined) {
      sets.push('channel = ?');
      values.push(this.#nullableName(KIND.channel, completion.channelId));
    }
    if (completion.model !== undefined) {
      sets.push('model = ?');
      values.push(this.#nullableName(KIND.model, completion.model));
    }
    this.#db.prepare(`UPDATE requests SET ${sets.join(', ')} WHERE pos = ?`).run(...values, found.pos);
    return true;
  }

  async findById(id: string): Promise<RequestRecord | null> {
    const row = this.#findRow(id);
    return row === undefined ? null : this.#record(row);
  }

  #findRow(id: string): Row | undefined {
    const parsed = parseRequestId(id);
    if (parsed === null) return undefined;
    const first = parsed.ms * PER_MS;
    return this.#byId.get(first, first + PER_MS + SPILL, parsed.random) as Row | undefined;
  }

  async list(query: RequestLogQuery): Promise<RequestLogPage> {
    const where: string[] = [];
    const params: Array<number | string> = [];
    const cursor =
      query.cursor === undefined
        ? undefined
        : Number(decodeCursor(query.cursor, (p) => /^\d{1,20}$/.test(p) && Number.isSafeInteger(Number(p))));
    let index: string | undefined;
    const empty = { records: [], nextCursor: null };
    if (query.keyId !== undefined) {
      const key = this.#existingKey(query.keyId);
      if (key === undefined) return empty;
      where.push('key = ?');
      params.push(key);
      index = 'requests_by_key';
    }
    let errorsOnly = false;
    const status = query.status;
    if (status !== undefined) {
      if (status.kind === 'ok') where.push('err = 0');
      else if (status.kind === 'error') errorsOnly = true;
      else if (status.kind === 'http') {
        where.push('status = ?');
        params.push(status.status);
        if (status.status >= 400) errorsOnly = true;
      } else {
        const code = this.#existingName(KIND.error, status.code);
        if (code === undefined) return empty;
        where.push('error = ?');
        params.push(code);
        errorsOnly = true;
      }
      if (errorsOnly) where.push('err = 1');
    }
    if (query.accountId !== undefined) {
      const account = this.#existingName(KIND.account, query.accountId);
      if (account === undefined) return empty;
      where.push('account = ?');
      params.push(account);
      index ??= errorsOnly ? 'requests_errors_by_account' : 'requests_by_account';
    }
    if (query.model !== undefined) {
      const model = this.#existingName(KIND.model, query.model);
      if (model === undefined) return empty;
      where.push('model = ?');
      params.push(model);
      index ??= 'requests_by_model';
    }
    if (errorsOnly) index ??= 'requests_errors';
    if (query.fromMs !== undefined) {
      where.push('pos >= ?');
      params.push(query.fromMs * PER_MS);
    }
    if (query.beforeMs !== undefined) {
      where.push('pos < ?');
      params.push(query.beforeMs * PER_MS);
    }
    if (cursor !== undefined) {
      where.push('pos < ?');
      params.push(cursor);
    }
    const sql =
      `SELECT ${SELECTED} FROM requests${index === undefined ? '' : ` INDEXED BY ${index}`}` +
      `${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY pos DESC LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...params, query.limit + 1) as unknown as Row[];
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      records: page.map((row) => this.#record(row)),
      nextCursor: rows.length > query.limit && last !== undefined ? encodeCursor(String(last.pos)) : null,
    };
  }

  async deleteOlderThan(beforeMs: number, batch: number): Promise<number> {
    return this.deleteNow(beforeMs, batch);
  }

  /** One synchronous retention step: the `batch` oldest records before `beforeMs`. */
  deleteNow(beforeMs: number, batch: number): number {
    const limit = beforeMs * PER_MS;
    const last = this.#oldest.get(limit, batch - 1) as { pos: number } | undefined;
    const upTo = last?.pos ?? limit - 1;
    const deleted = Number(this.#deleteUpTo.run(upTo).changes);
    // Few rows (videos), no index on pos: a scan of the small table, only when records went.
    if (deleted > 0) this.#jobsDeleteUpTo.run(upTo);
    return deleted;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  /** The underlying file's handle (the bench's bulk insert and size checks). */
  get database(): DatabaseSync {
    return this.#db;
  }

  #record(row: Row): RequestRecord {
    const key = this.#keyOf(row.key);
    const ms = Math.floor(row.pos / PER_MS);
    const random = Buffer.alloc(12);
    random.set(row.rnd);
    return {
      id: formatRequestId(ms, random),
      createdMs: ms,
      accountId: this.#value(row.account),
      keyId: key.keyId,
      keyLast4: key.last4,
      method: this.#value(row.method),
      path: this.#value(row.path),
      endpoint: this.#value(row.endpoint),
      model: this.#nullableValue(row.model),
      provider: this.#nullableValue(row.provider),
      channelId: this.#nullableValue(row.channel),
      attempts: row.attempts,
      status: row.status,
      errorCode: this.#nullableValue(row.error),
      outcome: REQUEST_OUTCOMES[row.outcome] as RequestOutcome,
      stream: row.stream === 1,
      inputTokens: row.input,
      outputTokens: row.output,
      cachedTokens: row.cached,
      reasoningTokens: row.reasoning,
      costMicros: BigInt(row.cost),
      latencyMs: row.latency,
      ttftMs: row.ttft,
      ip: this.#nullableValue(row.ip),
    };
  }

  #name(kind: Kind, value: string): number {
    const cacheKey = `${kind}:${value}`;
    const known = this.#ids.get(cacheKey);
    if (known !== undefined) return known;
    this.#nameInsert.run(kind, value);
    const id = (this.#nameSelect.get(kind, value) as { id: number }).id;
    this.#ids.set(cacheKey, id);
    this.#values.set(id, value);
    return id;
  }

  #nullableName(kind: Kind, value: string | null): number | null {
    return value === null ? null : this.#name(kind, value);
  }

  #existingName(kind: Kind, value: string): number | undefined {
    const known = this.#ids.get(`${kind}:${value}`);
    if (known !== undefined) return known;
    return (this.#nameSelect.get(kind, value) as { id: number } | undefined)?.id;
  }

  #key(keyId: string, account: number, last4: string): number {
    const known = this.#keyIds.get(keyId);
    if (known !== undefined) return known;
    this.#keyInsert.run(keyId, account, last4);
    const row = this.#keySelect.get(keyId) as { id: number; account: number; last4: string };
    this.#keyIds.set(keyId, row.id);
    this.#keys.set(row.id, { keyId, account: row.account, last4: row.last4 });
    return row.id;
  }

  #existingKey(keyId: string): number | undefined {
    return this.#keyIds.get(keyId) ?? (this.#keySelect.get(keyId) as { id: number } | undefined)?.id;
  }

  #keyOf(id: number): { keyId: string; last4: string } {
    const known = this.#keys.get(id);
    if (known !== undefined) return known;
    const row = this.#keyById.get(id) as { key_id: string; account: number; last4: string };
    const key = { keyId: row.key_id, account: row.account, last4: row.last4 };
    this.#keys.set(id, key);
    return key;
  }

  #value(id: number): string {
    const known = this.#values.get(id);
    if (known !== undefined) return known;
    const value = (this.#nameById.get(id) as { value: string }).value;
    this.#values.set(id, value);
    return value;
  }

  #nullableValue(id: number | null): string | null {
    return id === null ? null : this.#value(id);
  }

  #forgetNames(): void {
    this.#ids.clear();
    this.#values.clear();
    this.#keyIds.clear();
    this.#keys.clear();
  }
}
