import { describe, expect, it, vi } from 'vitest';
import { metricsRegistry } from '../../../shared/src/observability/registry.ts';
import type { RequestLogStore } from '../../../shared/src/request-log/request-log-store.ts';
import { RequestLogWriter } from '../../../shared/src/request-log/request-log-writer.ts';
import type { RequestRecord } from '../../../shared/src/request-log/request-record.ts';
import { runRetentionPass } from '../../../shared/src/request-log/retention.ts';
import { captureLogger } from '../../helpers/capture-logger.ts';
import { sampleRecord } from '../../helpers/request-records.ts';

async function dropped(reason: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('gateway_request_log_dropped_total')?.get();
  return metric?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

function memoryStore(write: (records: readonly RequestRecord[]) => Promise<void> = async () => undefined) {
  const written: RequestRecord[] = [];
  const store: RequestLogStore = {
    kind: 'sqlite',
    insertMany: async (records) => {
      await write(records);
      written.push(...records);
    },
    completeJob: async () => false,
    findById: async () => null,
    list: async () => ({ records: [], nextCursor: null }),
    retentionStep: async () => ({ deleted: 0, more: false }),
    close: async () => undefined,
  };
  return { store, written };
}

describe('the request log writer', () => {
  it('returns at once and writes in batches; close writes what waits (a graceful stop)', async () => {
    const { store, written } = memoryStore();
    const writer = new RequestLogWriter(store, captureLogger().logger, { flushMs: 60_000, maxBatch: 3 });
    for (let i = 0; i < 7; i += 1) writer.record(sampleRecord(Date.UTC(2030, 0, 1) + i));
    await new Promise((resolve) => setImmediate(resolve));
    // Two full batches went at the next turns; the last record waits for its timer or the close.
    expect(written.length).toBeLessThan(7);
    await writer.close();
    expect(written).toHaveLength(7);
    // After close: dropped, counted.
    const before = await dropped('queue_full');
    writer.record(sampleRecord(Date.UTC(2030, 0, 2)));
    expect(await dropped('queue_full')).toBe(before + 1);
  });

  it("writes a video's record (it started a job) at the next turn, with what waits, not after its timer", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { store, written } = memoryStore(() => (++calls === 2 ? held : Promise.resolve()));
    const writer = new RequestLogWriter(store, captureLogger().logger, { flushMs: 60_000, maxBatch: 10 });
    const at = Date.UTC(2030, 0, 1);
    writer.record(sampleRecord(at));
    const video = sampleRecord(at + 1, { jobId: 'job_1', endpoint: 'video', path: '/v1/videos' });
    writer.record(video);
    writer.record(sampleRecord(at + 2)); // Queued before that batch starts: it goes with it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.map((r) => r.createdMs)).toEqual([at, at + 1, at + 2]);
    // While a batch is being written, a video's record goes as soon as it ends.
    writer.record(sampleRecord(at + 3, { jobId: 'job_2' }));
    await new Promise((resolve) => setImmediate(resolve));
    writer.record(sampleRecord(at + 4, { jobId: 'job_3' }));
    writer.record(sampleRecord(at + 5));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toHaveLength(3); // job_2's batch is held by the store.
    release();
    await vi.waitFor(() =>
      expect(written.map((r) => r.createdMs)).toEqual([at, at + 1, at + 2, at + 3, at + 4, at + 5]),
    );
    // An ordinary record alone still waits for its timer.
    writer.record(sampleRecord(at + 6));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(written).toHaveLength(6);
    await writer.close();
    expect(written).toHaveLength(7);
  });

  it('drops and counts records beyond its bound, never waiting', async () => {
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { store, written } = memoryStore(() => stuck);
    const writer = new RequestLogWriter(store, captureLogger().logger, {
      flushMs: 1,
      maxBatch: 2,
      maxQueued: 4,
    });
    const before = await dropped('queue_full');
    for (let i = 0; i < 10; i += 1) writer.record(sampleRecord(Date.UTC(2030, 0, 1) + i));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 10; i += 1) writer.record(sampleRecord(Date.UTC(2030, 0, 3) + i));
    expect(await dropped('queue_full')).toBeGreaterThan(before);
    release();
    await writer.close();
    expect(written.length).toBeLessThanOrEqual(6 + 4);
  });

  it('answers its reads when the batch they write first is refused: counted, never thrown', async () => {
    const { store } = memoryStore(async () => {
      throw new Error('SQLITE_FULL');
    });
    const writer = new RequestLogWriter(store, captureLogger().logger, { flushMs: 60_000 });
    const before = await dropped('store_failed');
    const record = sampleRecord(Date.UTC(2030, 0, 1));
    writer.record(record);
    expect(await writer.findById(record.id)).toBeNull();
    expect(await dropped('store_failed')).toBe(before + 1);
    writer.record(sampleRecord(Date.UTC(2030, 0, 2)));
    expect(await writer.list({ limit: 10 })).toEqual({ records: [], nextCursor: null });
    expect(await dropped('store_failed')).toBe(before + 2);
    await writer.close();
  });

  it('counts the records of a batch the store refuses (a full disk)', async () => {
    const { store } = memoryStore(async () => {
      throw new Error('SQLITE_FULL');
    });
    const { logger, lines } = captureLogger();
    const writer = new RequestLogWriter(store, logger, { flushMs: 1, maxBatch: 10 });
    const before = await dropped('store_failed');
    for (let i = 0; i < 3; i += 1) writer.record(sampleRecord(Date.UTC(2030, 0, 1) + i));
    await writer.close();
    expect(await dropped('store_failed')).toBe(before + 3);
    expect(lines().some((line) => String(line.msg).includes('could not be written'))).toBe(true);
  });
});

describe('retention', () => {
  it('deletes in steps sized to their time, yielding between them', async () => {
    let left = 5_000;
    const batches: number[] = [];
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 0);
    const store = {
      ...memoryStore().store,
      retentionStep: async (_before: number, batch: number) => {
        batches.push(batch);
        // A slow file: 0.1 ms a row, busy (it holds the loop, as SQLite does).
        const until = performance.now() + batch * 0.1;
        while (performance.now() < until) {
          // busy
        }
        const deleted = Math.min(batch, left);
        left -= deleted;
        return { deleted, more: left > 0 };
      },
    };
    const deleted = await runRetentionPass(store, { retentionDays: 30, batch: 500 });
    clearInterval(ticker);
    expect(deleted).toBe(5_000);
    // The first step (500 rows, 50 ms) was too long: later steps shrank to 10 ms or less.
    expect(Math.max(...batches.slice(3))).toBeLessThanOrEqual(100);
    expect(ticks).toBeGreaterThan(5);
  });
});
