import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Positions per millisecond: a record's `pos` is its millisecond × 4096 plus 12 bits of its id. */
export const PER_MS = 4096;
export const DAY_MS = 24 * 3600 * 1000;
/** Records a partition takes before the next one starts (within a day); a drop stays a few ms. */
export const SEGMENT_ROWS = 100_000;

/** The partitions' register; `jobs` maps a video's job to its record (completed at the render's end). */
export const SEGMENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS segments (
  start_ms INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  rows INTEGER NOT NULL,
  last_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
  job_id TEXT PRIMARY KEY,
  pos INTEGER NOT NULL
) WITHOUT ROWID;
-- Retention: the jobs of a dropped partition go with it.
CREATE INDEX IF NOT EXISTS jobs_by_pos ON jobs (pos);
`;

/**
 * One partition's table and its indexes. `pos`, the rowid, orders the table by arrival (a date
 * range is a rowid range); the indexes are for exactly the listed queries, newest first
 * (`ORDER BY pos DESC` walks an index backwards, the rowid being its last column).
 */
function segmentSchema(name: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${name} (
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
-- GET /admin/v1/requests?account_id= (and the holder's own list): an account's page, newest first.
CREATE INDEX IF NOT EXISTS ${name}_by_account ON ${name} (account);
-- GET /admin/v1/requests?key_id=: a key's page, newest first.
CREATE INDEX IF NOT EXISTS ${name}_by_key ON ${name} (key);
-- GET /admin/v1/requests?model=: a model's page, newest first.
CREATE INDEX IF NOT EXISTS ${name}_by_model ON ${name} (model);
-- GET /admin/v1/requests?status=error|<code> across accounts: only the failed requests are indexed.
CREATE INDEX IF NOT EXISTS ${name}_errors ON ${name} (err) WHERE err = 1;
-- GET /admin/v1/requests?account_id=&status=error|<code>: an account's failed requests.
CREATE INDEX IF NOT EXISTS ${name}_errors_by_account ON ${name} (account) WHERE err = 1;
`;
}

/** The index suffixes of `segmentSchema`, for `INDEXED BY <segment>_<suffix>`. */
export type SegmentIndex = 'by_account' | 'by_key' | 'by_model' | 'errors' | 'errors_by_account';

/** The single table of the log's first schema, read and retired as one partition. */
const LEGACY_TABLE = 'requests';

export interface Segment {
  /** The first millisecond it holds; it holds every millisecond up to the next partition's start. */
  readonly startMs: number;
  readonly name: string;
  rows: number;
  /** The newest millisecond written to it (`startMs - 1` while empty). */
  lastMs: number;
}

/**
 * Prepared statements kept, at most: a page across many partitions prepares one per partition,
 * so this holds a year of daily partitions times a handful of query shapes.
 */
export const STATEMENTS_KEPT = 4_000;

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/**
 * The request log's partitions (docs/request-log.md): a table per UTC day, or per
 * `SEGMENT_ROWS` records within a busy day, each with its own indexes, registered in `segments`.
 * A partition holds the milliseconds from its start to the next one's, so a record's millisecond
 * (in its id) names its table; retention drops whole tables, so it never deletes row by row.
 * Changes happen inside the store's write transaction; after a rollback, `reload` reads the
 * register back.
 */
export class RequestLogSegments {
  readonly #db: DatabaseSync;
  readonly #rowsPerSegment: number;
  /** Oldest first. */
  #list: Segment[] = [];
  /** Prepared statements by partition name, then by the caller's key for them. */
  readonly #statements = new Map<string, Map<string, StatementSync>>();
  #statementCount = 0;
  readonly #statementsKept: number;
  readonly #touched = new Set<Segment>();
  readonly #save: StatementSync;

  constructor(db: DatabaseSync, rowsPerSegment = SEGMENT_ROWS, statementsKept = STATEMENTS_KEPT) {
    this.#db = db;
    this.#rowsPerSegment = rowsPerSegment;
    this.#statementsKept = statementsKept;
    db.exec(SEGMENTS_SCHEMA);
    this.#adoptLegacyTable();
    this.#save = db.prepare('UPDATE segments SET rows = ?, last_ms = ? WHERE start_ms = ?');
    this.reload();
  }

  /** Oldest first. */
  get all(): readonly Segment[] {
    return this.#list;
  }

  reload(): void {
    this.#list = (
      this.#db
        .prepare('SELECT start_ms, name, rows, last_ms FROM segments ORDER BY start_ms')
        .all() as Array<{
        start_ms: number;
        name: string;
        rows: number;
        last_ms: number;
      }>
    ).map((row) => ({ startMs: row.start_ms, name: row.name, rows: row.rows, lastMs: row.last_ms }));
    this.#touched.clear();
    this.#forgetStatements();
  }

  /** Forgets the statements of tables no longer registered. */
  #forgetStatements(): void {
    const names = new Set(this.#list.map((segment) => segment.name));
    for (const name of this.#statements.keys()) if (!names.has(name)) this.#forgetTable(name);
  }

  #forgetTable(name: string): void {
    this.#statementCount -= this.#statements.get(name)?.size ?? 0;
    this.#statements.delete(name);
  }

  /** Prepared statements kept now. */
  get statementCount(): number {
    return this.#statementCount;
  }

  /** The partition that holds millisecond `ms`, if any. */
  covering(ms: number): Segment | undefined {
    const list = this.#list;
    let low = 0;
    let high = list.length - 1;
    let found: Segment | undefined;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const segment = list[mid] as Segment;
      if (segment.startMs <= ms) {
        found = segment;
        low = mid + 1;
      } else high = mid - 1;
    }
    return found;
  }

  /**
   * The partition a record of millisecond `ms` is written to, made when needed: the covering one,
   * unless that one is of an earlier day or full and `ms` is past everything in it; then a new one
   * starts at `ms`'s day (or just after the covering one's newest record).
   */
  forWrite(ms: number): Segment {
    const covering = this.covering(ms);
    if (
      covering !== undefined &&
      (ms <= covering.lastMs ||
        (dayOf(covering.startMs) === dayOf(ms) && covering.rows < this.#rowsPerSegment))
    )
      return covering;
    const startMs = Math.max(dayOf(ms) * DAY_MS, covering === undefined ? 0 : covering.lastMs + 1);
    return this.#create(startMs);
  }

  /** `rows` more were written to `segment`, the newest of them at `lastMs`. */
  noteWritten(segment: Segment, rows: number, lastMs: number): void {
    segment.rows += rows;
    if (lastMs > segment.lastMs) segment.lastMs = lastMs;
    this.#touched.add(segment);
  }

  /** Stores the counts noted since the last save (inside the write's transaction). */
  save(): void {
    for (const segment of this.#touched) this.#save.run(segment.rows, segment.lastMs, segment.startMs);
    this.#touched.clear();
  }

  /** The partitions holding positions in [lowerPos, upperPos), newest first. */
  *between(lowerPos: number, upperPos: number): Generator<Segment> {
    const list = this.#list;
    for (let i = list.length - 1; i >= 0; i -= 1) {
      const segment = list[i] as Segment;
      if (segment.startMs * PER_MS >= upperPos) continue;
      // Its positions end within its newest millisecond's (a first-schema record may spill 64 past).
      if ((segment.lastMs + 2) * PER_MS <= lowerPos) return;
      yield segment;
    }
  }

  /** The oldest partition when everything in it arrived before `beforeMs`. */
  retirable(beforeMs: number): Segment | undefined {
    const oldest = this.#list[0];
    return oldest !== undefined && oldest.lastMs < beforeMs ? oldest : undefined;
  }

  /** Drops a partition with its indexes and its jobs' entries (inside a transaction). */
  drop(segment: Segment): void {
    const at = this.#list.indexOf(segment);
    const next = this.#list[at + 1];
    this.#db.exec(`DROP TABLE IF EXISTS ${segment.name}`);
    this.#db.prepare('DELETE FROM segments WHERE start_ms = ?').run(segment.startMs);
    this.#db
      .prepare('DELETE FROM jobs WHERE pos >= ? AND pos < ?')
      .run(segment.startMs * PER_MS, next === undefined ? Number.MAX_SAFE_INTEGER : next.startMs * PER_MS);
    this.#list.splice(at, 1);
    this.#forgetStatements();
  }

  /**
   * The statement `key` of `segment`, prepared from `sql(segment.name)` the first time and kept
   * (bounded: past `STATEMENTS_KEPT`, the statements of the partition least recently used are forgotten).
   */
  statement(segment: Segment, key: string, sql: (table: string) => string): StatementSync {
    let kept = this.#statements.get(segment.name);
    if (kept !== undefined && this.#statements.size > 1) {
      // Least recently used last: the partition moves to the end of the map's order.
      this.#statements.delete(segment.name);
      this.#statements.set(segment.name, kept);
    }
    const known = kept?.get(key);
    if (known !== undefined) return known;
    if (this.#statementCount >= this.#statementsKept) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined && oldest !== segment.name) this.#forgetTable(oldest);
    }
    if (kept === undefined) {
      kept = new Map();
      this.#statements.set(segment.name, kept);
    }
    const statement = this.#db.prepare(sql(segment.name));
    kept.set(key, statement);
    this.#statementCount += 1;
    return statement;
  }

  #create(startMs: number): Segment {
    const name = `requests_${startMs}`;
    this.#db.exec(segmentSchema(name));
    this.#db
      .prepare('INSERT INTO segments (start_ms, name, rows, last_ms) VALUES (?, ?, 0, ?)')
      .run(startMs, name, startMs - 1);
    const segment: Segment = { startMs, name, rows: 0, lastMs: startMs - 1 };
    const at = this.#list.findIndex((s) => s.startMs > startMs);
    if (at === -1) this.#list.push(segment);
    else this.#list.splice(at, 0, segment);
    return segment;
  }

  /** A file of the first schema: its one table becomes the first partition (kept, read, retired whole). */
  #adoptLegacyTable(): void {
    const legacy = this.#db
      .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(LEGACY_TABLE);
    if (legacy === undefined) return;
    const known = this.#db.prepare('SELECT 1 AS found FROM segments WHERE name = ?').get(LEGACY_TABLE);
    if (known !== undefined) return;
    const span = this.#db
      .prepare(`SELECT min(pos) AS first, max(pos) AS last, count(*) AS rows FROM ${LEGACY_TABLE}`)
      .get() as { first: number | null; last: number | null; rows: number };
    const startMs = span.first === null ? 0 : Math.floor(span.first / PER_MS);
    const lastMs = span.last === null ? startMs - 1 : Math.floor(span.last / PER_MS);
    this.#db
      .prepare('INSERT INTO segments (start_ms, name, rows, last_ms) VALUES (?, ?, ?, ?)')
      .run(startMs, LEGACY_TABLE, span.rows, lastMs);
  }
}
