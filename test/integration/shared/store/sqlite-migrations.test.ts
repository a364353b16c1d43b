import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { migrate, openSqlite } from '../../../../shared/src/store/sqlite/database.ts';
import { MIGRATIONS } from '../../../../shared/src/store/sqlite/migrations.ts';
import { createSqliteMoneyStore } from '../../../../shared/src/store/sqlite/money.sqlite.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

it('migrates a file of the first release: keys charged before learn their last use from the ledger', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'gw-migrate-'));
  folders.push(folder);
  const path = join(folder, 'gateway.db');
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 1));
  const charge = old.prepare(
    `INSERT INTO ledger (id, account_id, key_id, kind, amount, model, requests, input_tokens, output_tokens, day, month, reference, created_at)
     VALUES (?, 'acc', ?, 'charge', ?, 'm', 1, 1, 1, ?, ?, NULL, ?)`,
  );
  charge.run('c1', 'key-a', -10, '2025-02-10', '2025-02', 1_000);
  charge.run('c2', 'key-a', -5, '2025-03-01', '2025-03', 3_000);
  charge.run('c3', 'key-a', -5, '2025-03-02', '2025-03', 2_000);
  charge.run('c4', 'key-b', -7, '2025-03-02', '2025-03', 500);
  const spend = old.prepare(
    'INSERT INTO key_spend (key_id, month, account_id, spent, version) VALUES (?, ?, ?, ?, 1)',
  );
  spend.run('key-a', '2025-02', 'acc', 10);
  spend.run('key-a', '2025-03', 'acc', 10);
  spend.run('key-b', '2025-03', 'acc', 7);
  old.close();

  const db = openSqlite({ path, busyTimeoutMs: 5_000 });
  try {
    expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(
      MIGRATIONS.at(-1)?.version,
    );
    const money = createSqliteMoneyStore(db);
    expect(await money.keySpendsOf('acc', ['key-a', 'key-b'], '2025-03')).toEqual([
      { keyId: 'key-a', spentMicros: 10n, lastUsedAt: new Date(3_000) },
      { keyId: 'key-b', spentMicros: 7n, lastUsedAt: new Date(500) },
    ]);
  } finally {
    db.close();
  }
});
