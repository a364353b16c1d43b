import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidCursorError,
  type RequestLogStore,
} from '../../../../shared/src/request-log/request-log-store.ts';
import { formatRequestId, type RequestRecord } from '../../../../shared/src/request-log/request-record.ts';
import { runRetentionPass } from '../../../../shared/src/request-log/retention.ts';
import { connectMongo } from '../../../../shared/src/store/mongodb/connect.ts';
import { openMongoRequestLog } from '../../../../shared/src/store/mongodb/request-log.mongo.ts';
import { openSqliteRequestLog } from '../../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { sampleRecord } from '../../../helpers/request-records.ts';
import { freshMongoOptions, STORE_KINDS } from './store-under-test.ts';

const BASE_MS = Date.UTC(2030, 0, 1);

async function openLog(kind: string): Promise<{ log: RequestLogStore; close(): Promise<void> }> {
  if (kind === 'sqlite') {
    const folder = await mkdtemp(join(tmpdir(), 'gateway-requests-'));
    const log = openSqliteRequestLog({ path: join(folder, 'requests.db'), busyTimeoutMs: 5000 });
    return {
      log,
      async close() {
        await log.close();
        await rm(folder, { recursive: true, force: true });
      },
    };
  }
  const mongo = await connectMongo(freshMongoOptions());
  const log = await openMongoRequestLog(mongo.db, { retentionDays: 30 });
  return {
    log,
    async close() {
      await mongo.db.dropDatabase().catch(() => undefined);
      await mongo.client.close();
    },
  };
}

describe.each(STORE_KINDS)('request log store (%s)', (kind) => {
  let opened: { log: RequestLogStore; close(): Promise<void> };
  const log = () => opened.log;
  beforeAll(async () => {
    opened = await openLog(kind);
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('keeps every field of a record and finds it by id', async () => {
    const record = sampleRecord(BASE_MS + 1, { ttftMs: 45, stream: true, channelId: 'ch_x', jobId: null });
    await log().insertMany([record]);
    const { jobId: _omit, ...expected } = record;
    expect(await log().findById(record.id)).toEqual(expected);
    // Written again (a retried batch): left as it is, not doubled.
    await log().insertMany([record]);
    const page = await log().list({ limit: 200, fromMs: BASE_MS + 1, beforeMs: BASE_MS + 2 });
    expect(page.records.map((r) => r.id)).toEqual([record.id]);
  });

  it('answers null for an unknown or malformed id', async () => {
    expect(await log().findById(formatRequestId(BASE_MS + 1, randomBytes(12)))).toBeNull();
    expect(await log().findById('req_nope')).toBeNull();
    expect(await log().findById('')).toBeNull();
  });

  it('keeps nulls and large costs', async () => {
    const record = sampleRecord(BASE_MS + 5, {
      model: null,
      provider: null,
      ip: null,
      errorCode: 'model_not_found',
      status: 404,
      outcome: 'failed',
      costMicros: 9_007_199_254_740_993n,
    });
    await log().insertMany([record]);
    expect((await log().findById(record.id))?.costMicros).toBe(9_007_199_254_740_993n);
    expect(await log().findById(record.id)).toMatchObject({ model: null, provider: null, ip: null });
  });

  it('pages newest first with every filter, without gaps or repeats', async () => {
    const start = BASE_MS + 10_000;
    const records: RequestRecord[] = [];
    for (let i = 0; i < 60; i += 1) {
      records.push(
        sampleRecord(start + i * 10, {
          accountId: i % 2 === 0 ? 'acc_even' : 'acc_odd',
          keyId: i % 3 === 0 ? 'key_three' : 'key_other',
          model: i % 5 === 0 ? 'google/gemini-2.5-flash' : 'openai/gpt-4o-mini',
          status: i % 4 === 0 ? 429 : 200,
          errorCode: i % 4 === 0 ? 'rate_limit_exceeded' : null,
          outcome: i % 4 === 0 ? 'failed' : i % 7 === 0 ? 'client_gone' : 'completed',
        }),
      );
    }
    await log().insertMany(records);
    const window = { fromMs: start, beforeMs: start + 600 };
    const all = async (query: Record<string, unknown>) => {
      const seen: RequestRecord[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await log().list({ ...window, limit: 7, ...query, ...(cursor ? { cursor } : {}) });
        seen.push(...page.records);
        if (page.nextCursor === null) return seen;
        cursor = page.nextCursor;
      }
    };
    const newestFirst = [...records].reverse();
    expect((await all({})).map((r) => r.id)).toEqual(newestFirst.map((r) => r.id));
    const ids = (list: RequestRecord[]) => list.map((r) => r.id);
    expect(ids(await all({ accountId: 'acc_even' }))).toEqual(
      ids(newestFirst.filter((r) => r.accountId === 'acc_even')),
    );
    expect(ids(await all({ keyId: 'key_three' }))).toEqual(
      ids(newestFirst.filter((r) => r.keyId === 'key_three')),
    );
    expect(ids(await all({ model: 'google/gemini-2.5-flash' }))).toEqual(
      ids(newestFirst.filter((r) => r.model === 'google/gemini-2.5-flash')),
    );
    const errors = newestFirst.filter((r) => r.outcome !== 'completed' || r.status >= 400);
    expect(ids(await all({ status: { kind: 'error' } }))).toEqual(ids(errors));
    expect(ids(await all({ status: { kind: 'ok' } }))).toEqual(
      ids(newestFirst.filter((r) => !errors.includes(r))),
    );
    expect(ids(await all({ status: { kind: 'code', code: 'rate_limit_exceeded' } }))).toEqual(
      ids(newestFirst.filter((r) => r.errorCode === 'rate_limit_exceeded')),
    );
    expect(ids(await all({ status: { kind: 'http', status: 429 } }))).toEqual(
      ids(newestFirst.filter((r) => r.status === 429)),
    );
    expect(ids(await all({ accountId: 'acc_even', status: { kind: 'error' } }))).toEqual(
      ids(errors.filter((r) => r.accountId === 'acc_even')),
    );
    expect(ids(await all({ fromMs: start + 100, beforeMs: start + 200 }))).toEqual(
      ids(newestFirst.filter((r) => r.createdMs >= start + 100 && r.createdMs < start + 200)),
    );
    expect(await all({ accountId: 'acc_nobody' })).toEqual([]);
    expect(await all({ model: 'no/such-model' })).toEqual([]);
  });

  it('pages without gaps or repeats while newer records are written', async () => {
    const start = BASE_MS + 50_000;
    const existing = Array.from({ length: 40 }, (_, i) => sampleRecord(start + i, { accountId: 'acc_live' }));
    await log().insertMany(existing);
    const seen: string[] = [];
    let cursor: string | undefined;
    let later = start + 1_000;
    for (;;) {
      const page = await log().list({ accountId: 'acc_live', limit: 6, ...(cursor ? { cursor } : {}) });
      seen.push(...page.records.map((r) => r.id));
      // Newer requests arrive between two pages.
      await log().insertMany([sampleRecord(later, { accountId: 'acc_live' })]);
      later += 1;
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    const expected = [...existing].reverse().map((r) => r.id);
    expect(seen.filter((id) => expected.includes(id))).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('refuses a cursor it did not make', async () => {
    for (const cursor of ['%%%', 'bm9wZQ', Buffer.from('c1:zzz').toString('base64url'), 'a'.repeat(300)]) {
      await expect(log().list({ limit: 5, cursor })).rejects.toBeInstanceOf(InvalidCursorError);
    }
  });

  it('completes the record of a video job, once written', async () => {
    const record = sampleRecord(BASE_MS + 90_000, {
      endpoint: 'video',
      path: '/v1/videos',
      status: 202,
      costMicros: 0n,
      jobId: `vid_${randomBytes(6).toString('hex')}`,
    });
    expect(
      await log().completeJob(record.jobId as string, {
        status: 200,
        outcome: 'completed',
        errorCode: null,
        costMicros: 5n,
      }),
    ).toBe(false);
    await log().insertMany([record]);
    const done = { status: 502, outcome: 'failed' as const, errorCode: 'upstream_error', costMicros: 0n };
    expect(await log().completeJob(record.jobId as string, done)).toBe(true);
    expect(await log().findById(record.id)).toMatchObject({
      status: 502,
      outcome: 'failed',
      errorCode: 'upstream_error',
    });
    const errors = await log().list({ limit: 5, status: { kind: 'code', code: 'upstream_error' } });
    expect(errors.records.map((r) => r.id)).toContain(record.id);
  });

  it('completes a video record with the provider and channel of its render', async () => {
    const record = sampleRecord(BASE_MS + 91_000, {
      endpoint: 'video',
      path: '/v1/videos',
      status: 202,
      provider: null,
      channelId: null,
      costMicros: 0n,
      jobId: `vid_${randomBytes(6).toString('hex')}`,
    });
    await log().insertMany([record]);
    const rendered = {
      status: 200,
      outcome: 'completed' as const,
      errorCode: null,
      costMicros: 7n,
      provider: 'openai',
      channelId: 'ch_render',
    };
    expect(await log().completeJob(record.jobId as string, rendered)).toBe(true);
    expect(await log().findById(record.id)).toMatchObject({
      status: 200,
      provider: 'openai',
      channelId: 'ch_render',
      costMicros: 7n,
    });
  });

  it('deletes the records past the retention, oldest first, keeping newer ones (retention)', async () => {
    const day = 24 * 3600 * 1000;
    const at = (daysAgo: number, i: number) => BASE_MS - daysAgo * day + 3_600_000 + i;
    const old = [
      ...Array.from({ length: 12 }, (_, i) => sampleRecord(at(41, i), { accountId: 'acc_old' })),
      ...Array.from({ length: 13 }, (_, i) => sampleRecord(at(40, i), { accountId: 'acc_old' })),
    ];
    const kept = Array.from({ length: 5 }, (_, i) => sampleRecord(at(20, i), { accountId: 'acc_kept' }));
    await log().insertMany([...kept, ...old]);
    // One step deletes the oldest records first: the 41-day-old ones go before the 40-day-old.
    const first = await log().retentionStep(BASE_MS - 30 * day, 12);
    expect(first).toEqual({ deleted: 12, more: true });
    expect(await log().findById((old[0] as RequestRecord).id)).toBeNull();
    expect(await log().findById((old[12] as RequestRecord).id)).not.toBeNull();
    const deleted = await runRetentionPass(log(), { retentionDays: 30, batch: 4, now: () => BASE_MS });
    expect(deleted).toBe(13);
    expect((await log().list({ accountId: 'acc_old', limit: 50 })).records).toEqual([]);
    expect((await log().list({ accountId: 'acc_kept', limit: 50 })).records).toHaveLength(5);
    // Nothing more is past the retention.
    expect(await log().retentionStep(BASE_MS - 30 * day, 12)).toEqual({ deleted: 0, more: false });
  });
});
