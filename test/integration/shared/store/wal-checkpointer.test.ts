import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteRequestLog } from '../../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { startWalCheckpointer } from '../../../../shared/src/store/sqlite/wal-checkpointer.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { sampleRecord } from '../../../helpers/request-records.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'wal-checkpointer-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Waits until `done` holds, up to `ms`. */
async function until(done: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('the WAL checkpointing thread', () => {
  it("copies the request log's WAL back into its file, the writer never checkpointing itself", async () => {
    const path = join(folder, 'requests.db');
    const log = openSqliteRequestLog({ path, busyTimeoutMs: 5_000 });
    const before = statSync(path).size;
    // About 2 MiB of new pages, far below the writer's own backstop (64 MiB).
    for (let batch = 0; batch < 20; batch += 1)
      log.insertNow(
        Array.from({ length: 500 }, (_, i) => sampleRecord(Date.UTC(2030, 0, 1) + batch * 500 + i)),
      );
    const walPages = (log.database.prepare('PRAGMA wal_autocheckpoint').get() as Record<string, number>)
      .wal_autocheckpoint;
    expect(walPages).toBe(16_384);
    // The pages reach the file only through a checkpoint, and nothing here ran one.
    expect(await until(() => statSync(path).size > before + 1_000_000)).toBe(true);
    await log.close();
  });

  it('stops with a last checkpoint, and stopping twice or after the file is gone is harmless', async () => {
    const path = join(folder, 'plain.db');
    const db = new DatabaseSync(path);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v BLOB)');
    const checkpointer = startWalCheckpointer(path, 60_000);
    const before = statSync(path).size;
    db.prepare('INSERT INTO t VALUES (randomblob(500000))').run();
    await checkpointer.stop();
    expect(statSync(path).size).toBeGreaterThan(before + 400_000);
    await checkpointer.stop();
    db.close();

    const gone = startWalCheckpointer(join(folder, 'missing', 'x.db'), 10);
    await gone.stop();
  });
});

describe('a lost checkpointing thread', () => {
  it('is told once, with its error, when the thread cannot open its file', async () => {
    const lost: unknown[] = [];
    startWalCheckpointer(join(folder, 'missing', 'x.db'), 10, (err) => lost.push(err));
    expect(await until(() => lost.length > 0)).toBe(true);
    expect(lost).toHaveLength(1);
    expect(String(lost[0])).toMatch(/unable to open|missing|no such/i);
  });

  it('is not told for a stop', async () => {
    const path = join(folder, 'quiet.db');
    new DatabaseSync(path).exec('PRAGMA journal_mode = WAL');
    const lost: unknown[] = [];
    const checkpointer = startWalCheckpointer(path, 10, (err) => lost.push(err));
    await checkpointer.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lost).toEqual([]);
  });

  it('hands checkpointing back to the writers, logged once, and the WAL stays bounded', async () => {
    const path = join(folder, 'requests.db');
    const { logger, lines } = captureLogger();
    const log = openSqliteRequestLog({ path, busyTimeoutMs: 5_000, logger });
    const warnings = () => lines().filter((line) => /checkpointing thread stopped/.test(String(line.msg)));
    await log.checkpointer?.thread.terminate();
    expect(await until(() => warnings().length > 0)).toBe(true);
    expect(warnings()).toHaveLength(1);
    const pages = (log.database.prepare('PRAGMA wal_autocheckpoint').get() as Record<string, number>)
      .wal_autocheckpoint;
    expect(pages).toBe(1_000);
    // About 8 MiB of new pages: with SQLite's own checkpoints the WAL never holds them all.
    for (let batch = 0; batch < 80; batch += 1)
      log.insertNow(
        Array.from({ length: 500 }, (_, i) => sampleRecord(Date.UTC(2030, 0, 1) + batch * 500 + i)),
      );
    expect(statSync(`${path}-wal`).size).toBeLessThan(6 * 1024 * 1024);
    await log.close();
  });
});
