import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestRecord } from '../../../../shared/src/request-log/request-record.ts';
import { runRetentionPass } from '../../../../shared/src/request-log/retention.ts';
import {
  openSqliteRequestLog,
  type SqliteRequestLog,
} from '../../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { DAY_MS, PER_MS } from '../../../../shared/src/store/sqlite/request-log-segments.ts';
import { RequestLogWriteThread } from '../../../../shared/src/store/sqlite/request-log-write-thread.ts';
import { sampleRecord } from '../../../helpers/request-records.ts';

const DAY0 = Date.UTC(2030, 0, 1);
const at = (day: number, ms: number) => DAY0 + day * DAY_MS + ms;

let folder: string;
let path: string;
const opened: SqliteRequestLog[] = [];
const open = (rowsPerSegment?: number, statementsKept?: number) => {
  const log = openSqliteRequestLog({
    path,
    busyTimeoutMs: 5_000,
    ...(rowsPerSegment ? { rowsPerSegment } : {}),
    ...(statementsKept ? { statementsKept } : {}),
  });
  opened.push(log);
  return log;
};
const tables = (log: SqliteRequestLog) =>
  (
    log.database
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'requests%' ORDER BY name")
      .all() as Array<{ name: string }>
  ).map((row) => row.name);

/** Every record of the log, newest first, read page by page. */
async function readAll(log: SqliteRequestLog, limit = 7): Promise<RequestRecord[]> {
  const all: RequestRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await log.list({ limit, ...(cursor === undefined ? {} : { cursor }) });
    all.push(...page.records);
    if (page.nextCursor === null) return all;
    cursor = page.nextCursor;
  }
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'request-log-partitions-'));
  path = join(folder, 'requests.db');
});
afterEach(async () => {
  for (const log of opened.splice(0)) await log.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the request log partitions (SQLite)', () => {
  it('keeps each UTC day in its own table and retention drops them whole, oldest first', async () => {
    const log = open();
    const records = [0, 1, 2].flatMap((day) => [1, 2, 3].map((i) => sampleRecord(at(day, i * 1000))));
    await log.insertMany(records);
    expect(log.segments.map((s) => s.startMs)).toEqual([at(0, 0), at(1, 0), at(2, 0)]);
    expect(log.segments.map((s) => s.rows)).toEqual([3, 3, 3]);
    expect(tables(log)).toHaveLength(3);

    // The first day is past the retention as soon as its newest record is.
    expect(await log.retentionStep(at(0, 3000), 50)).toEqual({ deleted: 0, more: false });
    const deleted = await runRetentionPass(log, { retentionDays: 1, now: () => at(2, 3001) });
    expect(deleted).toBe(6);
    expect(tables(log)).toEqual([`requests_${at(2, 0)}`]);
    expect((await readAll(log)).map((r) => r.id)).toEqual(
      records
        .slice(6)
        .map((r) => r.id)
        .reverse(),
    );
    expect(await log.findById((records[0] as RequestRecord).id)).toBeNull();
  });

  it('splits a busy day into partitions, and a late record goes to the one holding its millisecond', async () => {
    const log = open(4);
    const early = Array.from({ length: 10 }, (_, i) => sampleRecord(at(0, 1000 + i * 10)));
    await log.insertMany(early);
    expect(log.segments.length).toBe(3);
    // A record of a millisecond before the newest partition's start, written after it.
    const late = sampleRecord(at(0, 1005));
    await log.insertMany([late]);
    expect(log.segments.length).toBe(3);
    expect(await log.findById(late.id)).toMatchObject({ id: late.id, createdMs: at(0, 1005) });
    const ids = (await readAll(log, 3)).map((r) => r.id);
    const expected = [...early, late].sort((a, b) => b.createdMs - a.createdMs).map((r) => r.id);
    expect(ids).toEqual(expected);
    // A date range across the partitions' edges.
    const range = await log.list({ limit: 50, fromMs: at(0, 1030), beforeMs: at(0, 1071) });
    expect(range.records.map((r) => r.createdMs)).toEqual(
      [1070, 1060, 1050, 1040, 1030].map((ms) => at(0, ms)),
    );
  });

  it('records of one millisecond share its positions, none lost', async () => {
    const log = open();
    const same = Array.from({ length: 300 }, () => sampleRecord(at(0, 5)));
    await log.insertMany(same);
    expect(log.segments[0]?.rows).toBe(300);
    for (const record of same) expect((await log.findById(record.id))?.id).toBe(record.id);
    const page = await log.list({ limit: 200 });
    expect(page.records.every((r) => r.createdMs === at(0, 5))).toBe(true);
    expect((await readAll(log, 200)).length).toBe(300);
    const positions = log.database
      .prepare(`SELECT min(pos) AS low, max(pos) AS high FROM ${log.segments[0]?.name}`)
      .get() as {
      low: number;
      high: number;
    };
    expect(positions.low).toBeGreaterThanOrEqual(at(0, 5) * PER_MS);
    expect(positions.high).toBeLessThan(at(0, 6) * PER_MS);
  });

  it('a record written again (a batch retried, an id twice in one) stays one record', async () => {
    const log = open();
    // Runs of 32 rows go in one statement: the repeats fall inside and across such runs.
    const records = Array.from({ length: 70 }, (_, i) => sampleRecord(at(0, 10 + (i % 3))));
    await log.insertMany([...records, ...records.slice(0, 40)]);
    await log.insertMany(records);
    expect((await readAll(log, 200)).map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
    expect(
      (log.database.prepare(`SELECT count(*) AS n FROM ${log.segments[0]?.name}`).get() as { n: number }).n,
    ).toBe(70);
  });

  it('batches written on the write thread are read at once on the opening connection', async () => {
    const log = openSqliteRequestLog({ path, busyTimeoutMs: 5_000, rowsPerSegment: 50, writeThread: true });
    opened.push(log);
    expect(log.writeThread).not.toBeNull();
    const records = Array.from({ length: 120 }, (_, i) => sampleRecord(at(0, 100 + i)));
    await Promise.all([log.insertMany(records.slice(0, 60)), log.insertMany(records.slice(60))]);
    for (const record of records) expect((await log.findById(record.id))?.id).toBe(record.id);
    expect((await readAll(log, 50)).map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    expect(log.segments.length).toBe(3);
    await log.close();
    const reopened = open();
    expect((await readAll(reopened, 200)).length).toBe(120);
  });

  it('the write thread checkpoints the WAL too: the file grows while the api starts no other thread', async () => {
    const log = openSqliteRequestLog({ path, busyTimeoutMs: 5_000, writeThread: true });
    opened.push(log);
    expect(log.checkpointer).toBeNull();
    await log.insertMany([sampleRecord(at(0, 1))]);
    const before = statSync(path).size;
    await log.insertMany(Array.from({ length: 3_000 }, (_, i) => sampleRecord(at(0, 10 + i))));
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(before), {
      timeout: 5_000,
      interval: 100,
    });
  });

  it('a batch the write thread cannot write is refused whole, with its error', async () => {
    const log = openSqliteRequestLog({ path, busyTimeoutMs: 5_000, writeThread: true });
    opened.push(log);
    // Packed for the thread, failing there after a good record: a new key without its last four
    // (the NOT NULL column makes SQLite ignore its row, and the key's number is then not found).
    const bad = { ...sampleRecord(at(0, 2)), keyId: 'key_new', keyLast4: null as unknown as string };
    await expect(log.insertMany([sampleRecord(at(0, 1)), bad])).rejects.toThrow(/properties of undefined/);
    expect(await readAll(log)).toEqual([]);
    // Its key was numbered in the refused batch, which the thread unpacked: it still knows it.
    const good = sampleRecord(at(0, 3), { keyId: 'key_new', channelId: 'ch_9' });
    await log.insertMany([good]);
    expect(await readAll(log)).toEqual([{ ...good, jobId: undefined }]);
    // Refused before it is sent, having numbered a new string: the next batch starts the
    // dictionary again rather than name it by a number the thread never got.
    const numbered = sampleRecord(at(0, 4), { ip: '198.51.100.9' });
    const unpackable = sampleRecord(at(0, 4), { costMicros: 2n ** 63n });
    await expect(log.insertMany([numbered, unpackable])).rejects.toThrow(RangeError);
    const after = sampleRecord(at(0, 5), { ip: '198.51.100.9' });
    await log.insertMany([after]);
    expect(await readAll(log)).toEqual([after, good].map((r) => ({ ...r, jobId: undefined })));
    expect(log.writeThread?.lost).toBe(false);
    await log.close();
    // A closed thread takes no more batches.
    await expect(log.writeThread?.write([good])).rejects.toThrow(/closed/);
  });

  it('a lost write thread: its batch in flight fails, and later batches are written on the event loop', async () => {
    const warned: unknown[] = [];
    const log = openSqliteRequestLog({
      path,
      busyTimeoutMs: 5_000,
      writeThread: true,
      logger: { warn: (obj: unknown) => warned.push(obj) },
    });
    opened.push(log);
    const thread = log.writeThread;
    if (thread === null) throw new Error('no write thread');
    await log.insertMany([sampleRecord(at(0, 1))]);
    const ended = new Promise((resolve) => thread.thread.once('exit', resolve));
    const pending = sampleRecord(at(0, 2));
    const inFlight = log.insertMany([pending]).then(
      () => 'written',
      () => 'refused',
    );
    await thread.thread.terminate();
    await ended;
    // Resolved only once committed; refused otherwise (the writer counts those records as lost).
    if ((await inFlight) === 'written') expect((await log.findById(pending.id))?.id).toBe(pending.id);
    else expect(await log.findById(pending.id)).toBeNull();
    expect(thread.lost).toBe(true);
    expect(warned).toHaveLength(1);
    await expect(thread.write([sampleRecord(at(0, 4))])).rejects.toThrow(/write thread ended/);
    // Checkpoints are the connection's own again, as SQLite does them.
    expect(log.database.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1000 });
    const later = sampleRecord(at(0, 3));
    await log.insertMany([later]);
    expect((await log.findById(later.id))?.id).toBe(later.id);
    await log.close();
    await expect(thread.write([later])).rejects.toThrow();
  });

  it('a write thread that cannot open its file at start is lost once, and its writes are refused', async () => {
    const losses: Error[] = [];
    // A folder where the file should be: SQLite cannot open it as a database.
    const thread = new RequestLogWriteThread(
      { path: folder, busyTimeoutMs: 1_000, checkpointEveryMs: 1_000 },
      (err) => losses.push(err),
    );
    const refused = thread.write([sampleRecord(at(0, 1))]);
    await expect(refused).rejects.toThrow();
    await vi.waitFor(() => expect(losses).toHaveLength(1));
    expect(thread.lost).toBe(true);
    await expect(thread.write([sampleRecord(at(0, 2))])).rejects.toThrow();
    await thread.close();
    expect(losses).toHaveLength(1);
  });

  it('two connections on one file (two processes) share the partitions', async () => {
    const a = open(3);
    const b = open(3);
    await a.insertMany([sampleRecord(at(0, 1)), sampleRecord(at(0, 2))]);
    // b has not read the register since a made day 0's partition: it catches up before writing.
    await b.insertMany([sampleRecord(at(0, 3)), sampleRecord(at(0, 4)), sampleRecord(at(1, 1))]);
    await a.insertMany([sampleRecord(at(1, 2))]);
    const starts = (log: SqliteRequestLog) => log.segments.map((s) => s.startMs);
    expect((await readAll(a)).length).toBe(6);
    expect((await readAll(b)).length).toBe(6);
    expect(starts(a)).toEqual(starts(b));
    expect(starts(a)).toEqual([at(0, 0), at(0, 4), at(1, 0)]);
    // A partition b drops is gone for a too.
    expect(await b.retentionStep(at(0, 4), 50)).toEqual({ deleted: 3, more: false });
    expect((await readAll(a)).map((r) => r.createdMs)).toEqual([at(1, 2), at(1, 1), at(0, 4)]);
  });

  it('a batch that fails is rolled back whole, its partition too', async () => {
    const log = open();
    await log.insertMany([sampleRecord(at(0, 1))]);
    const bad = { ...sampleRecord(at(3, 1)), costMicros: {} as unknown as bigint };
    await expect(log.insertMany([sampleRecord(at(2, 1)), bad])).rejects.toThrow();
    expect(log.segments.map((s) => s.startMs)).toEqual([at(0, 0)]);
    expect(tables(log)).toEqual([`requests_${at(0, 0)}`]);
    await log.insertMany([sampleRecord(at(2, 2))]);
    expect((await readAll(log)).map((r) => r.createdMs)).toEqual([at(2, 2), at(0, 1)]);
  });

  it('adopts a file of the first schema: its table is read as the oldest partition and retired whole', async () => {
    const first = sampleRecord(at(0, 7));
    const seed = open();
    await seed.insertMany([first]);
    const segment = seed.segments[0]?.name as string;
    await seed.close();
    // The first schema: one `requests` table and no register.
    const db = new DatabaseSync(path);
    db.exec(`ALTER TABLE ${segment} RENAME TO requests; DROP TABLE segments; DROP TABLE presence;`);
    db.close();

    const log = open();
    expect(log.segments.map((s) => s.name)).toEqual(['requests']);
    expect((await log.findById(first.id))?.id).toBe(first.id);
    const next = sampleRecord(at(1, 1));
    await log.insertMany([next]);
    expect(log.segments.map((s) => s.name)).toEqual(['requests', `requests_${at(1, 0)}`]);
    expect((await readAll(log)).map((r) => r.id)).toEqual([next.id, first.id]);
    expect(await log.retentionStep(at(1, 0), 50)).toEqual({ deleted: 1, more: false });
    expect(tables(log)).toEqual([`requests_${at(1, 0)}`]);
  });

  it("reads an account's pages (and a key's) only in the partitions the account has records in", async () => {
    const log = open();
    const failed = { status: 502, errorCode: 'upstream_error', outcome: 'failed' as const };
    const quiet = { accountId: 'acc_quiet', keyId: 'key_quiet' };
    await log.insertMany([
      sampleRecord(at(0, 1), quiet),
      sampleRecord(at(0, 2), { ...quiet, ...failed }),
      sampleRecord(at(1, 1), failed),
      sampleRecord(at(2, 1), quiet),
      sampleRecord(at(2, 2), failed),
      sampleRecord(at(3, 1)),
    ]);
    // A partition the page must not read: its table gone, only a skipped table is never touched.
    log.database.exec(`DROP TABLE requests_${at(3, 0)}`);
    const errors = await log.list({ limit: 10, accountId: 'acc_quiet', status: { kind: 'error' } });
    expect(errors.records.map((r) => r.createdMs)).toEqual([at(0, 2)]);
    const byKey = await log.list({ limit: 10, keyId: 'key_quiet' });
    expect(byKey.records.map((r) => r.createdMs)).toEqual([at(2, 1), at(0, 2), at(0, 1)]);
    // A key and another account's id match nothing.
    expect((await log.list({ limit: 10, keyId: 'key_quiet', accountId: 'acc_1' })).records).toEqual([]);
  });

  it("an account's failures are found after a video's render fails, after a reopen, and after a drop", async () => {
    const log = open();
    const video = sampleRecord(at(1, 5), { accountId: 'acc_v', jobId: 'job_v', status: 202 });
    await log.insertMany([sampleRecord(at(0, 1), { accountId: 'acc_v' }), video]);
    const errorsOf = async (store: SqliteRequestLog) =>
      (await store.list({ limit: 10, accountId: 'acc_v', status: { kind: 'error' } })).records.map(
        (r) => r.id,
      );
    expect(await errorsOf(log)).toEqual([]);
    await log.completeJob('job_v', {
      status: 502,
      outcome: 'failed',
      errorCode: 'upstream_error',
      costMicros: 0n,
    });
    expect(await errorsOf(log)).toEqual([video.id]);
    // A file written before the summary existed: it is filled from the partitions at open.
    await log.close();
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE presence');
    db.close();
    const reopened = open();
    expect(await errorsOf(reopened)).toEqual([video.id]);
    expect(await reopened.retentionStep(at(1, 0), 50)).toEqual({ deleted: 1, more: false });
    const left = reopened.database.prepare('SELECT start_ms FROM presence ORDER BY start_ms').all();
    expect(left).toEqual([{ start_ms: at(1, 0) }]);
  });

  it("retention deletes a dropped partition's summary entries with it", async () => {
    const log = open();
    const accounts = Array.from({ length: 1_200 }, (_, i) => `acc_${i}`);
    await log.insertMany(accounts.map((accountId, i) => sampleRecord(at(0, i), { accountId })));
    await log.insertMany([sampleRecord(at(1, 1))]);
    const entries = () =>
      (log.database.prepare('SELECT count(*) AS n FROM presence').get() as { n: number }).n;
    expect(entries()).toBe(1_201);
    expect(await log.retentionStep(at(1, 0), 50)).toEqual({ deleted: 1_200, more: false });
    expect(entries()).toBe(1);
    expect((await log.list({ limit: 10, accountId: 'acc_1' })).records.map((r) => r.createdMs)).toEqual([
      at(1, 1),
    ]);
  });

  it('keeps at most the bound of prepared statements, the least recently used partition forgotten first', async () => {
    const log = open(undefined, 6);
    await log.insertMany([0, 1, 2, 3].map((day) => sampleRecord(at(day, 1))));
    // Four inserts, then a page over four partitions: the bound holds.
    expect(log.statementCount).toBeLessThanOrEqual(6);
    expect((await readAll(log, 10)).length).toBe(4);
    expect(log.statementCount).toBeLessThanOrEqual(6);
    // Pages keep answering as statements are forgotten and prepared again.
    for (const model of ['openai/gpt-4o-mini', 'none/such']) {
      const page = await log.list({ limit: 10, model });
      expect(page.records.length).toBe(model === 'none/such' ? 0 : 4);
    }
    for (let day = 0; day < 4; day += 1) {
      const found = await log.list({ limit: 10, fromMs: at(day, 0), beforeMs: at(day + 1, 0) });
      expect(found.records.map((r) => r.createdMs)).toEqual([at(day, 1)]);
    }
    expect(log.statementCount).toBeLessThanOrEqual(6);
  });
});
