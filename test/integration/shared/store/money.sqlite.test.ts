import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChargeRecord, MoneyStore } from '../../../../shared/src/billing/money-store.ts';
import { openSqlite } from '../../../../shared/src/store/sqlite/database.ts';
import { createSqliteMoneyStore } from '../../../../shared/src/store/sqlite/money.sqlite.ts';
import { charge } from './money-contract.ts';

const DATABASE_MODULE = new URL('../../../../shared/src/store/sqlite/database.ts', import.meta.url).href;
const MONEY_MODULE = new URL('../../../../shared/src/store/sqlite/money.sqlite.ts', import.meta.url).href;

// A second process of the host (the api beside a worker) with its own connection to the file: a
// worker thread, so its transactions really run at the same time as the other connection's.
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { openSqlite } = await import(workerData.databaseModule);
  const { createSqliteMoneyStore } = await import(workerData.moneyModule);
  const db = openSqlite({ path: workerData.path, busyTimeoutMs: 10000 });
  try {
    const money = createSqliteMoneyStore(db);
    // Both writers start together: loading the modules takes longer than the writes themselves.
    parentPort.postMessage('ready');
    Atomics.wait(new Int32Array(workerData.start), 0, 0);
    let recorded = 0;
    for (const batch of workerData.batches) {
      for (const result of await money.recordCharges(batch)) if (result.outcome === 'recorded') recorded += 1;
      // A pause between batches, as a batcher has: a writer that never lets go of the lock starves the
      // other, whose busy handler polls at growing intervals (up to 100 ms) rather than queueing.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    parentPort.postMessage({ recorded });
  } finally {
    db.close();
  }
})();
`;

// Holds the write lock for a while, as a long transaction of another process would.
const LOCK_HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path);
db.exec('BEGIN IMMEDIATE');
parentPort.postMessage('locked');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
db.exec('COMMIT');
db.close();
parentPort.postMessage('released');
`;

function runWorker<T>(code: string, workerData: unknown, onMessage?: (message: T) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData });
    let last: T | undefined;
    worker.on('message', (message: T) => {
      last = message;
      onMessage?.(message);
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code === 0 && last !== undefined) resolve(last);
      else reject(new Error(`worker exited with code ${code} without an answer`));
    });
  });
}

let folder: string;
let path: string;
let db: DatabaseSync;
let money: MoneyStore;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'money-sqlite-'));
  path = join(folder, 'gateway.db');
  db = openSqlite({ path, busyTimeoutMs: 5_000 });
  money = createSqliteMoneyStore(db);
});

afterEach(async () => {
  db.close();
  await rm(folder, { recursive: true, force: true });
});

describe('SQLite money store, several connections on one file', () => {
  it('records charges from two connections at once without SQLITE_BUSY, each id once', async () => {
    const accounts = ['acc-a', 'acc-b'];
    const records = Array.from({ length: 1_200 }, (_, n) =>
      charge(`c-${String(n).padStart(5, '0')}`, {
        accountId: accounts[n % 2] as string,
        keyId: n % 3 === 0 ? null : `key-${n % 2}`,
        model: `m-${n % 3}`,
        costMicros: BigInt(n) * 997n + 1n,
        at: n,
      }),
    );
    const batches = (list: ChargeRecord[]) =>
      Array.from({ length: Math.ceil(list.length / 8) }, (_, i) => list.slice(i * 8, i * 8 + 8));
    // Both write every id, in opposite orders, so they also meet on the same ids.
    const start = new SharedArrayBuffer(4);
    let ready = 0;
    let allReady: () => void = () => undefined;
    const readyToStart = new Promise<void>((resolve) => {
      allReady = resolve;
    });
    const writers = [records, [...records].reverse()].map((list) =>
      runWorker<{ recorded: number } | 'ready'>(
        WRITER,
        { path, databaseModule: DATABASE_MODULE, moneyModule: MONEY_MODULE, batches: batches(list), start },
        (message) => {
          ready += message === 'ready' ? 1 : 0;
          if (ready === 2) allReady();
        },
      ),
    );
    await readyToStart;
    Atomics.store(new Int32Array(start), 0, 1);
    Atomics.notify(new Int32Array(start), 0);
    let done = false;
    const all = Promise.all(writers).finally(() => {
      done = true;
    });
    // A reader meanwhile: each check reads one snapshot, never a half-written call.
    let checks = 0;
    while (!done) {
      expect(await money.checkLedger()).toEqual([]);
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }

    const recorded = (await all).map((answer) => (typeof answer === 'object' ? answer.recorded : 0));

    expect(recorded.reduce((sum, count) => sum + count, 0)).toBe(records.length);
    // Each recorded some: their transactions interleaved rather than one running after the other.
    expect(recorded.every((count) => count > 0)).toBe(true);
    expect(checks).toBeGreaterThan(0);
    for (const accountId of accounts) {
      const own = records.filter((r) => r.accountId === accountId);
      const total = own.reduce((sum, r) => sum + r.costMicros, 0n);
      expect((await money.walletState(accountId)).balance).toBe(-total);
      // A call moves each wallet once, with the sum of its new charges: one version step per call
      // that recorded any (each call of 8 holds 4 of the account's; the two writers' 300 calls).
      const { version } = await money.walletState(accountId);
      expect(version).toBeGreaterThanOrEqual(BigInt(own.length / 4));
      expect(version).toBeLessThanOrEqual(BigInt(own.length / 2));
      const keyed = own.filter((r) => r.keyId !== null).reduce((sum, r) => sum + r.costMicros, 0n);
      const keyId = accountId === 'acc-a' ? 'key-0' : 'key-1';
      expect((await money.keySpendState(accountId, keyId, '2025-03')).spent).toBe(keyed);
      const usage = await money.listUsage(accountId, '2025-03-01', '2025-03-01');
      expect(usage.reduce((sum, row) => sum + row.costMicros, 0n)).toBe(total);
      expect(usage.reduce((sum, row) => sum + row.requests, 0)).toBe(own.length);
    }
    expect(await money.checkLedger()).toEqual([]);
  });

  it('waits for another connection’s write lock instead of failing', async () => {
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = runWorker<string>(LOCK_HOLDER, { path, holdMs: 300 }, (message) => {
      if (message === 'locked') locked();
    });
    await lockTaken;

    const started = Date.now();
    const [result] = await money.recordCharges([charge('waited', { costMicros: 42n })]);
    const waited = Date.now() - started;

    expect(result?.outcome).toBe('recorded');
    expect((await money.walletState('acc-1')).balance).toBe(-42n);
    // The lock is held 300 ms from just before 'locked' was posted: the call waited for most of it.
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(await holder).toBe('released');
  });
});

describe('SQLite money store, ledger check', () => {
  it('reports an account whose entries add up to non-zero but has no wallet row', async () => {
    await money.recordCharges([
      charge('req-1', { costMicros: 700n }),
      charge('req-2', { accountId: 'acc-2' }),
    ]);
    const other = new DatabaseSync(path, { timeout: 5_000 });
    try {
      other.prepare('DELETE FROM wallets WHERE account_id = ?').run('acc-1');
    } finally {
      other.close();
    }

    expect(await money.checkLedger()).toEqual([
      { accountId: 'acc-1', balanceMicros: 0n, ledgerMicros: -700n },
    ]);
  });
});

describe('SQLite money store, a call that fails midway', () => {
  it('records nothing of a batch whose later charge is refused, and the retry counts once', async () => {
    const good = charge('good', { costMicros: 500n });
    // STRICT tables refuse a non-integer count: the second charge fails after the first one counted.
    const bad = charge('bad', { usage: { requests: 1, inputTokens: 1.5, outputTokens: 2 } });

    await expect(money.recordCharges([good, bad])).rejects.toThrow(/INTEGER/);

    expect(await money.findEntry('good')).toBeNull();
    expect(await money.findEntry('bad')).toBeNull();
    expect(await money.walletState('acc-1')).toEqual({ balance: 0n, version: 0n });
    expect(await money.keySpendState('acc-1', 'key-1', '2025-03')).toEqual({ spent: 0n, version: 0n });
    expect(await money.listUsage('acc-1', '2025-03-01', '2025-03-31')).toEqual([]);
    expect(await money.listLedger('acc-1', { limit: 10 })).toEqual([]);
    expect(db.isTransaction).toBe(false);

    const [retried] = await money.recordCharges([good]);
    expect(retried?.outcome).toBe('recorded');
    expect(await money.walletState('acc-1')).toEqual({ balance: -500n, version: 1n });
    expect(await money.checkLedger()).toEqual([]);
  });

  it('records no top-up entry when its wallet cannot take it', async () => {
    const maxInt64 = 2n ** 63n - 1n;
    const topUp = (id: string, amountMicros: bigint) => ({
      id,
      accountId: 'acc-1',
      amountMicros,
      reference: null,
      day: '2025-03-01',
      month: '2025-03',
      createdAt: new Date('2025-03-01T10:00:00Z'),
    });
    await money.recordTopUp(topUp('full', maxInt64));

    // The ledger row goes in first; the wallet's overflow then undoes it.
    await expect(money.recordTopUp(topUp('overflow', 1n))).rejects.toThrow(/INTEGER/);

    expect(await money.findEntry('overflow')).toBeNull();
    expect(await money.walletState('acc-1')).toEqual({ balance: maxInt64, version: 1n });
    expect(await money.checkLedger()).toEqual([]);
  });
});
