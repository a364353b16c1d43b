import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteRequestLog } from '../../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { startWalCheckpointer } from '../../../../shared/src/store/sqlite/wal-checkpointer.ts';
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
