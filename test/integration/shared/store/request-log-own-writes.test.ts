import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestLogWriter } from '../../../../shared/src/request-log/request-log-writer.ts';
import { openSqliteRequestLog } from '../../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';
import { sampleRecord } from '../../../helpers/request-records.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'request-log-own-writes-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("the writer's reads (what the api answers)", () => {
  it('finds a record still waiting in memory, and lists it, without waiting for its batch', async () => {
    const store = openSqliteRequestLog({ path: join(folder, 'requests.db'), busyTimeoutMs: 5_000 });
    const writer = new RequestLogWriter(store, captureLogger().logger, { flushMs: 60_000 });
    const record = sampleRecord(Date.now());
    writer.record(record);
    // The store alone has not got it yet: its batch is a minute away.
    expect(await store.findById(record.id)).toBeNull();
    expect((await writer.findById(record.id))?.id).toBe(record.id);

    const next = sampleRecord(Date.now() + 1);
    writer.record(next);
    const page = await writer.list({ limit: 10 });
    expect(page.records.map((r) => r.id)).toEqual([next.id, record.id]);
    await writer.close();
    await store.close();
  });

  it('answers an unknown id with null, with nothing waiting or after writing what waited', async () => {
    const store = openSqliteRequestLog({ path: join(folder, 'requests.db'), busyTimeoutMs: 5_000 });
    const writer = new RequestLogWriter(store, captureLogger().logger, { flushMs: 60_000 });
    const unknown = sampleRecord(Date.now()).id;
    expect(await writer.findById(unknown)).toBeNull();
    writer.record(sampleRecord(Date.now()));
    expect(await writer.findById(unknown)).toBeNull();
    expect((await store.list({ limit: 10 })).records).toHaveLength(1);
    await writer.close();
    await store.close();
  });
});
