import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Logger } from '../../logging/logger.ts';
import {
  decodeCursor,
  encodeCursor,
  type RequestLogPage,
  type RequestLogQuery,
  type RequestLogStore,
  type RetentionStep,
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
import { NAME_KIND, NAMES_SCHEMA, RequestLogNames } from './request-log-names.ts';
import { RequestLogPresence } from './request-log-presence.ts';
import { PER_MS, RequestLogSegments, type Segment, type SegmentIndex } from './request-log-segments.ts';
import { RequestLogWriteThread } from './request-log-write-thread.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

/** How often the checkpointing thread copies the WAL back into the file. */
const CHECKPOINT_EVERY_MS = 1_000;
/**
 * The writers' own checkpoint, a backstop should that thread fall behind: at 16,384 WAL pages
 * (64 MiB) instead of SQLite's 1,000, so it rarely happens on the event loop.
 */
const BACKSTOP_PAGES = 16_384;
/** SQLite's own `wal_autocheckpoint`, back on the writers once the thread is lost. */
const SQLITE_DEFAULT_PAGES = 1_000;

/** How many positions past its own a first-schema record may have moved on collisions. */
const LEGACY_SPILL = 64;
/** Positions of one millisecond tried for a record before it is dropped (a 12-bit collision). */
const TRIES = 64;

export interface SqliteRequestLogOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** Records a partition takes before the next starts (tests make it small); default SEGMENT_ROWS. */
  readonly rowsPerSegment?: number;
  /** Prepared statements kept across partitions (tests make it small); default STATEMENTS_KEPT. */
  readonly statementsKept?: number;
  /** Told when the checkpointing thread is lost (the writers then checkpoint as SQLite does). */
  readonly logger?: Pick<Logger, 'warn'>;
  /** Checkpoints on a thread of their own (default true; the write thread's connection has none). */
  readonly checkpointThread?: boolean;
  /**
   * Batches (`insertMany`) written by a thread of their own, off the event loop (default false;
   * the serving processes turn it on). A lost thread is logged, and batches are written here again.
   */
  readonly writeThread?: boolean;
}

/** A record on its way into a partition: its first position, its slot there and its other values. */
interface Pending {
  /** Its millisecond's first position. */
  readonly first: number;
  /** Its place among the millisecond's positions (12 bits of its id), tried first. */
  readonly slot: number;
  readonly random: Buffer;
  readonly values: Array<number | bigint | string | Uint8Array | null>;
  readonly jobId: string | null;
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
const PLACEHOLDERS = COLUMNS.split(', ')
  .map(() => '?')
  .join(', ');

/** Read back with the cost as text: a µIRT amount may pass 2^53. */
const SELECTED = COLUMNS.replace('cost,', 'CAST(cost AS TEXT) AS cost,');

/** The statements every partition has, by its table's name. */
const INSERT = (table: string) => `INSERT OR IGNORE INTO ${table} (${COLUMNS}) VALUES (${PLACEHOLDERS})`;
/** Rows a full run's statement writes at once (a batch's calls into SQLite are its rows / 32). */
const ROWS_PER_INSERT = 32;
const INSERT_RUN = (table: string) =>
  `INSERT OR IGNORE INTO ${table} (${COLUMNS}) VALUES ${Array.from({ length: ROWS_PER_INSERT }, () => `(${PLACEHOLDERS})`).join(', ')}`;
const RND_AT = (table: string) => `SELECT rnd FROM ${table} WHERE pos = ?`;
const BY_ID = (table: string) => `SELECT ${SELECTED} FROM ${table} WHERE pos BETWEEN ? AND ? AND rnd = ?`;

/**
 * Opens (creating) the request log's own SQLite file. Compact by design (≤ 200 bytes a record at
 * ten million rows, bench/REQUEST-LOG.md):
 * - records live in partitions, a table per UTC day (or per 100,000 records of a busy day), each
 *   with its own indexes (./request-log-segments.ts): retention drops whole tables;
 * - `pos`, the rowid, is the request's millisecond × 4096 plus 12 bits of its id's random part:
 *   a table is stored in arrival order, `created` is not stored (it is `pos / 4096`), a date
 *   range is a rowid range, and a lookup by id reads the few rows of one millisecond of one table;
 * - `rnd` holds the id's other random bytes, so the id is rebuilt from `pos` and `rnd`;
 * - every repeated string is a small integer into `names`, keys into `keys` (./request-log-names.ts).
 */
export function openSqliteRequestLog(options: SqliteRequestLogOptions): SqliteRequestLog {
  const path = options.path === ':memory:' ? options.path : resolve(options.path);
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path, { timeout: options.busyTimeoutMs, readBigInts: false });
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    // Checkpoints (their writes and syncs) on a thread of their own, off the event loop.
    db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    // The pages new records land on (the newest partition and its indexes) stay cached: 32 MiB
    // of page cache, and the file mapped so reads cost no system call.
    db.exec('PRAGMA cache_size = -32768');
    db.exec('PRAGMA mmap_size = 1073741824');
    db.exec(NAMES_SCHEMA);
    const segments = new RequestLogSegments(db, options.rowsPerSegment, options.statementsKept);
    // A lost thread that checkpointed: logged once, and this connection checkpoints as SQLite does.
    const checkpointHereOnLoss = (message: string) => (err: unknown) => {
      options.logger?.warn({ err }, message);
      if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    };
    // With a write thread, that thread checkpoints too (one thread, not two, per process).
    const writeThread = options.writeThread === true && path !== ':memory:';
    const checkpointer =
      path === ':memory:' || options.checkpointThread === false || writeThread
        ? null
        : startWalCheckpointer(
            path,
            CHECKPOINT_EVERY_MS,
            checkpointHereOnLoss(
              'request log: the WAL checkpointing thread stopped; its writers checkpoint on their own',
            ),
          );
    const writes = writeThread
      ? new RequestLogWriteThread(
          {
            path,
            busyTimeoutMs: options.busyTimeoutMs,
            checkpointEveryMs: CHECKPOINT_EVERY_MS,
            ...(options.rowsPerSegment === undefined ? {} : { rowsPerSegment: options.rowsPerSegment }),
            ...(options.statementsKept === undefined ? {} : { statementsKept: options.statementsKept }),
          },
          checkpointHereOnLoss(
            "request log: its write thread stopped; batches are written (and the WAL checkpointed) on the event loop's connection",
          ),
        )
      : null;
    return new SqliteRequestLog(db, segments, checkpointer, writes);
  } catch (err) {
    throw new StoreOpenError(path, err);
  }
}

export class SqliteRequestLog implements RequestLogStore {
  readonly kind = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #names: RequestLogNames;
  readonly #segments: RequestLogSegments;
  readonly #presence: RequestLogPresence;
  readonly #dataVersion: StatementSync;
  readonly #jobInsert: StatementSync;
  readonly #jobSelect: StatementSync;
  readonly #checkpointer: WalCheckpointer | null;
  readonly #writes: RequestLogWriteThread | null;
  #seenVersion: number;

  constructor(
    db: DatabaseSync,
    segments: RequestLogSegments,
    checkpointer: WalCheckpointer | null = null,
    writes: RequestLogWriteThread | null = null,
  ) {
    this.#db = db;
    this.#checkpointer = checkpointer;
    this.#writes = writes;
    this.#names = new RequestLogNames(db);
    this.#segments = segments;
    this.#presence = new RequestLogPresence(db, segments.all);
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#jobInsert = db.prepare('INSERT OR IGNORE INTO jobs (job_id, pos) VALUES (?, ?)');
    this.#jobSelect = db.prepare('SELECT pos FROM jobs WHERE job_id = ?');
    this.#seenVersion = this.#version();
  }

  /** The thread batches go to while it lives, each answered once it committed (tests). */
  get writeThread(): RequestLogWriteThread | null {
    return this.#writes;
  }

  async insertMany(records: readonly RequestRecord[]): Promise<void> {
    const writes = this.#writes;
    if (writes !== null && !writes.lost) return writes.write(records);
    this.insertNow(records);
  }

  /**
   * The synchronous write of a batch, in one transaction (the bench calls it directly). Records go
   * in statements of `ROWS_PER_INSERT` rows (one call into SQLite for many), each run of them into
   * the partition its records' milliseconds name.
   */
  insertNow(records: readonly RequestRecord[]): void {
    this.#write(() => {
      let run: Pending[] = [];
      let segment: Segment | undefined;
      for (const record of records) {
        const parsed = parseRequestId(record.id);
        if (parsed === null) continue; // Only the service's own ids are logged.
        const into = this.#segments.forWrite(parsed.ms);
        if (into !== segment || run.length === ROWS_PER_INSERT) {
          if (segment !== undefined) this.#insertRun(segment, run);
          segment = into;
          run = [];
        }
        run.push(this.#pending(record, parsed, into));
      }
      if (segment !== undefined) this.#insertRun(segment, run);
    });
  }
  /**
   * Runs `write` in one immediate transaction, the partitions' register read again first when
   * another connection (a second api, the worker) committed since; rolled back whole on a failure.
   */
  #write<T>(write: () => T): T {
    const db = this.#db;
    db.exec('BEGIN IMMEDIATE');
    try {
      this.#catchUp();
      const result = write();
      this.#segments.save();
      db.exec('COMMIT');
      return result;
    } catch (err) {
      if (db.isTransaction) db.exec('ROLLBACK');
      // A name, key or partition written inside the rolled-back transaction is not in the file.
      this.#names.forget();
      this.#segments.reload();
      this.#presence.forget();
      throw err;
    }
  }

  /** Reads the register again when another connection committed since this one last looked. */
  #catchUp(): void {
    const version = this.#version();
    if (version === this.#seenVersion) return;
    this.#seenVersion = version;
    this.#segments.reload();
    this.#presence.forget();
  }

  #version(): number {
    return (this.#dataVersion.get() as { data_version: number }).data_version;
  }

  /**
   * A record's bound values (all but its position) and first position, noted in its partition at
   * once (its row count, newest millisecond and account), so the next record's partition is
   * chosen knowing it. A record then not written (its millisecond's positions all taken) leaves
   * the partition's counts a little high, which costs nothing: they only bound its size.
   */
  #pending(
    record: RequestRecord,
    parsed: { readonly ms: number; readonly random: Buffer },
    segment: Segment,
  ): Pending {
    const { ms, random } = parsed;
    const names = this.#names;
    const account = names.name(NAME_KIND.account, record.accountId);
    const failed = isErrorRecord(record);
    const values = [
      random,
      account,
      names.key(record.keyId, account, record.keyLast4),
      names.name(NAME_KIND.method, record.method),
      names.name(NAME_KIND.path, record.path),
      names.name(NAME_KIND.endpoint, record.endpoint),
      names.nullableName(NAME_KIND.model, record.model),
      names.nullableName(NAME_KIND.provider, record.provider),
      names.nullableName(NAME_KIND.channel, record.channelId),
      record.attempts,
      record.status,
      names.nullableName(NAME_KIND.error, record.errorCode),
      REQUEST_OUTCOMES.indexOf(record.outcome),
      failed ? 1 : 0,
      record.stream ? 1 : 0,
      record.inputTokens,
      record.outputTokens,
      record.cachedTokens,
      record.reasoningTokens,
      record.costMicros,
      Math.max(0, Math.round(record.latencyMs)),
      record.ttftMs === null ? null : Math.max(0, Math.round(record.ttftMs)),
      names.nullableName(NAME_KIND.ip, record.ip),
    ];
    this.#segments.noteWritten(segment, 1, ms);
    this.#presence.note(segment, account, failed);
    const slot = ((random[0] as number) << 4) + ((random[1] as number) >> 4);
    return { first: ms * PER_MS, slot, random, values, jobId: record.jobId ?? null };
  }

  /**
   * Writes a run of records of one partition: a full run in one statement, a shorter one row by
   * row. A row the statement ignored (its position taken: `changes` falls short) is found by its
   * position's `rnd` and moved on, as a single row would be.
   */
  #insertRun(segment: Segment, run: readonly Pending[]): void {
    if (run.length === ROWS_PER_INSERT) {
      const args: Array<number | bigint | string | Uint8Array | null> = [];
      for (const row of run) args.push(row.first + row.slot, ...row.values);
      const changes = Number(this.#segments.statement(segment, 'insertRun', INSERT_RUN).run(...args).changes);
      for (const row of run) {
        if (changes === run.length || this.#holds(segment, row.first + row.slot, row.random)) {
          this.#noteJob(row, row.first + row.slot);
        } else this.#insertOne(segment, row, 1);
      }
      return;
    }
    for (const row of run) this.#insertOne(segment, row, 0);
  }

  /**
   * One row, from its `from`th try on: a taken position moves to the next of the same millisecond
   * (wrapping), so every position of a partition belongs to a millisecond it holds.
   */
  #insertOne(segment: Segment, row: Pending, from: number): void {
    const insert = this.#segments.statement(segment, 'insert', INSERT);
    for (let tries = from; tries < TRIES; tries += 1) {
      const pos = row.first + ((row.slot + tries) % PER_MS);
      if (Number(insert.run(pos, ...row.values).changes) === 1 || this.#holds(segment, pos, row.random)) {
        this.#noteJob(row, pos);
        return;
      }
    }
  }

  /** Whether position `pos` of `segment` holds the record of id bytes `random` (written already). */
  #holds(segment: Segment, pos: number, random: Buffer): boolean {
    const taken = this.#segments.statement(segment, 'rnd', RND_AT).get(pos) as
      | { rnd: Uint8Array }
      | undefined;
    return taken !== undefined && Buffer.from(taken.rnd).equals(random);
  }

  #noteJob(row: Pending, pos: number): void {
    if (row.jobId !== null) this.#jobInsert.run(row.jobId, pos);
  }

  async completeJob(jobId: string, completion: RequestCompletion): Promise<boolean> {
    return this.#write(() => {
      const found = this.#jobSelect.get(jobId) as { pos: number } | undefined;
      const segment =
        found === undefined ? undefined : this.#segments.covering(Math.floor(found.pos / PER_MS));
      if (found === undefined || segment === undefined) return false;
      const names = this.#names;
      const failed = isErrorRecord(completion);
      const sets = ['status = ?', 'outcome = ?', 'err = ?', 'error = ?', 'cost = ?'];
      const values: Array<number | bigint | null> = [
        completion.status,
        REQUEST_OUTCOMES.indexOf(completion.outcome),
        failed ? 1 : 0,
        names.nullableName(NAME_KIND.error, completion.errorCode),
        completion.costMicros,
      ];
      if (completion.provider !== undefined) {
        sets.push('provider = ?');
        values.push(names.nullableName(NAME_KIND.provider, completion.provider));
      }
      if (completion.channelId !== undefined) {
        sets.push('channel = ?');
        values.push(names.nullableName(NAME_KIND.channel, completion.channelId));
      }
      if (completion.model !== undefined) {
        sets.push('model = ?');
        values.push(names.nullableName(NAME_KIND.model, completion.model));
      }
      const row = this.#db
        .prepare(`UPDATE ${segment.name} SET ${sets.join(', ')} WHERE pos = ? RETURNING account`)
        .get(...values, found.pos) as { account: number } | undefined;
      if (row !== undefined) this.#presence.note(segment, row.account, failed);
      return true;
    });
  }

  async findById(id: string): Promise<RequestRecord | null> {
    const parsed = parseRequestId(id);
    if (parsed === null) return null;
    this.#catchUp();
    const segment = this.#segments.covering(parsed.ms);
    if (segment === undefined) return null;
    const first = parsed.ms * PER_MS;
    const row = this.#segments
      .statement(segment, 'byId', BY_ID)
      .get(first, first + PER_MS + LEGACY_SPILL, parsed.random) as Row | undefined;
    return row === undefined ? null : this.#record(row);
  }

  async list(query: RequestLogQuery): Promise<RequestLogPage> {
    const cursor =
      query.cursor === undefined
        ? undefined
        : Number(decodeCursor(query.cursor, (p) => /^\d{1,20}$/.test(p) && Number.isSafeInteger(Number(p))));
    const filter = this.#filter(query);
    const empty = { records: [], nextCursor: null };
    if (filter === null) return empty;
    this.#catchUp();
    const lower = query.fromMs === undefined ? 0 : query.fromMs * PER_MS;
    const upper = Math.min(
      query.beforeMs === undefined ? Number.MAX_SAFE_INTEGER : query.beforeMs * PER_MS,
      cursor ?? Number.MAX_SAFE_INTEGER,
    );
    if (lower >= upper) return empty;
    // Newest partition first, each asked for what is still missing.
    const rows: Row[] = [];
    const where = [...filter.where, 'pos >= ?', 'pos < ?'].join(' AND ');
    const page = (table: string) =>
      `SELECT ${SELECTED} FROM ${table}${filter.index === undefined ? '' : ` INDEXED BY ${table}_${filter.index}`}` +
      ` WHERE ${where} ORDER BY pos DESC LIMIT ?`;
    const shape = `${filter.index ?? ''}|${where}`;
    const { account, errorsOnly } = filter;
    for (const segment of this.#segments.between(lower, upper)) {
      if (account !== undefined && !this.#presence.holds(segment, account, errorsOnly)) continue;
      const found = this.#segments
        .statement(segment, shape, page)
        .all(...filter.params, lower, upper, query.limit + 1 - rows.length) as unknown as Row[];
      rows.push(...found);
      if (rows.length > query.limit) break;
    }
    const kept = rows.slice(0, query.limit);
    const last = kept.at(-1);
    return {
      records: kept.map((row) => this.#record(row)),
      nextCursor: rows.length > query.limit && last !== undefined ? encodeCursor(String(last.pos)) : null,
    };
  }

  /** The query's filters as SQL on a partition, and the index they read; null: nothing can match. */
  #filter(query: RequestLogQuery): {
    where: string[];
    params: number[];
    index: SegmentIndex | undefined;
    /** The account every match belongs to (its own filter, or the key's), to skip partitions by. */
    account: number | undefined;
    errorsOnly: boolean;
  } | null {
    const names = this.#names;
    const where: string[] = [];
    const params: number[] = [];
    let index: SegmentIndex | undefined;
    let account: number | undefined;
    if (query.keyId !== undefined) {
      const key = names.existingKey(query.keyId);
      if (key === undefined) return null;
      where.push('key = ?');
      params.push(key);
      index = 'by_key';
      account = names.keyOf(key).account;
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
        const code = names.existingName(NAME_KIND.error, status.code);
        if (code === undefined) return null;
        where.push('error = ?');
        params.push(code);
        errorsOnly = true;
      }
      if (errorsOnly) where.push('err = 1');
    }
    if (query.accountId !== undefined) {
      const id = names.existingName(NAME_KIND.account, query.accountId);
      if (id === undefined || (account !== undefined && account !== id)) return null;
      where.push('account = ?');
      params.push(id);
      index ??= errorsOnly ? 'errors_by_account' : 'by_account';
      account = id;
    }
    if (query.model !== undefined) {
      const model = names.existingName(NAME_KIND.model, query.model);
      if (model === undefined) return null;
      where.push('model = ?');
      params.push(model);
      index ??= 'by_model';
    }
    if (errorsOnly) index ??= 'errors';
    return { where, params, index, account, errorsOnly };
  }

  async retentionStep(beforeMs: number, _batch: number): Promise<RetentionStep> {
    return this.retentionStepNow(beforeMs);
  }

  /**
   * One synchronous retention step: drops the oldest partition when all of it arrived before
   * `beforeMs` (a day's records go together once the day's newest passed the retention).
   */
  retentionStepNow(beforeMs: number): RetentionStep {
    return this.#write(() => {
      const segment = this.#segments.retirable(beforeMs);
      if (segment === undefined) return { deleted: 0, more: false };
      this.#segments.drop(segment);
      this.#presence.dropped(segment);
      return { deleted: segment.rows, more: this.#segments.retirable(beforeMs) !== undefined };
    });
  }

  async close(): Promise<void> {
    await this.#writes?.close();
    await this.#checkpointer?.stop();
    if (this.#db.isOpen) this.#db.close();
  }

  /** The thread that checkpoints the file's WAL (null in memory). */
  get checkpointer(): WalCheckpointer | null {
    return this.#checkpointer;
  }

  /** The underlying file's handle (the bench's size checks). */
  get database(): DatabaseSync {
    return this.#db;
  }

  /** The partitions, oldest first (tests and the bench). */
  get segments(): readonly Segment[] {
    return this.#segments.all;
  }

  /** Prepared statements kept across partitions (tests). */
  get statementCount(): number {
    return this.#segments.statementCount;
  }

  #record(row: Row): RequestRecord {
    const names = this.#names;
    const key = names.keyOf(row.key);
    const ms = Math.floor(row.pos / PER_MS);
    const random = Buffer.alloc(12);
    random.set(row.rnd);
    return {
      id: formatRequestId(ms, random),
      createdMs: ms,
      accountId: names.value(row.account),
      keyId: key.keyId,
      keyLast4: key.last4,
      method: names.value(row.method),
      path: names.value(row.path),
      endpoint: names.value(row.endpoint),
      model: names.nullableValue(row.model),
      provider: names.nullableValue(row.provider),
      channelId: names.nullableValue(row.channel),
      attempts: row.attempts,
      status: row.status,
      errorCode: names.nullableValue(row.error),
      outcome: REQUEST_OUTCOMES[row.outcome] as RequestOutcome,
      stream: row.stream === 1,
      inputTokens: row.input,
      outputTokens: row.output,
      cachedTokens: row.cached,
      reasoningTokens: row.reasoning,
      costMicros: BigInt(row.cost),
      latencyMs: row.latency,
      ttftMs: row.ttft,
      ip: names.nullableValue(row.ip),
    };
  }
}
