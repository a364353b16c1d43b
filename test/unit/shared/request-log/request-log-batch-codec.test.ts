import { describe, expect, it } from 'vitest';
import {
  RequestBatchPacker,
  RequestBatchUnpacker,
} from '../../../../shared/src/store/sqlite/request-log-batch-codec.ts';
import { sampleRecord } from '../../../helpers/request-records.ts';

const MS = Date.UTC(2026, 11, 3, 12);

/** Packs on one side and unpacks on the other, as the event loop and the write thread do. */
function pair(bound?: number) {
  const packer = new RequestBatchPacker(bound);
  const unpacker = new RequestBatchUnpacker();
  return {
    send(records: Parameters<RequestBatchPacker['pack']>[0]) {
      const { batch, transfer } = packer.pack(records);
      return { records: unpacker.unpack(structuredClone(batch, { transfer })), batch };
    },
  };
}

describe('request log batches packed for the write thread', () => {
  it('arrive as the records sent, every field and null kept', () => {
    const records = [
      sampleRecord(MS),
      sampleRecord(MS + 1, {
        accountId: 'acc_2',
        keyId: 'key_9',
        keyLast4: 'zz99',
        method: 'GET',
        path: '/v1/videos',
        endpoint: 'video',
        model: null,
        provider: null,
        channelId: 'ch_1',
        attempts: 3,
        status: 502,
        errorCode: 'upstream_error',
        outcome: 'failed',
        stream: true,
        inputTokens: 0,
        outputTokens: 0,
        cachedTokens: 0,
        reasoningTokens: 0,
        costMicros: 0n,
        latencyMs: 0,
        ttftMs: 0,
        ip: null,
        jobId: 'job_1',
      }),
      // The largest charge a 64-bit column holds, and a stream's time to first token.
      sampleRecord(MS + 2, {
        costMicros: 2n ** 63n - 1n,
        ttftMs: 1_234,
        outcome: 'client_gone',
        status: 499,
      }),
    ];
    const { records: got } = pair().send(records);
    expect(got).toEqual(records.map((r) => ({ jobId: null, ...r })));
  });

  it('send each string once, then only its number', () => {
    const link = pair();
    const first = link.send([sampleRecord(MS), sampleRecord(MS + 1)]);
    expect(first.batch.added).toEqual([
      'acc_1',
      'key_1',
      'a1b2',
      'POST',
      '/v1/chat/completions',
      'chat',
      'openai/gpt-4o-mini',
      'openai',
      'completed',
      '203.0.113.7',
    ]);
    const later = link.send([sampleRecord(MS + 2, { ip: '198.51.100.1' })]);
    expect(later.batch.added).toEqual(['198.51.100.1']);
    expect(later.records[0]?.ip).toBe('198.51.100.1');
    expect(later.records[0]?.accountId).toBe('acc_1');
  });

  it('start the dictionary again on both sides once it reaches its bound', () => {
    const link = pair(12);
    link.send([sampleRecord(MS)]); // 10 strings.
    const filling = link.send([sampleRecord(MS + 1, { ip: '198.51.100.1', keyId: 'key_2' })]);
    expect(filling.batch.reset).toBe(false);
    const next = link.send([sampleRecord(MS + 2, { ip: '198.51.100.2' })]);
    expect(next.batch.reset).toBe(true);
    expect(next.batch.added).toContain('acc_1');
    expect(next.records[0]).toMatchObject({ accountId: 'acc_1', keyId: 'key_1', ip: '198.51.100.2' });
    const after = link.send([sampleRecord(MS + 3, { keyId: 'key_2' })]);
    expect(after.batch.reset).toBe(false);
    expect(after.records[0]).toMatchObject({ keyId: 'key_2', ip: '203.0.113.7' });
  });

  it('start again after a batch that could not be packed (its strings never reached the thread)', () => {
    const link = pair();
    const fresh = sampleRecord(MS, { accountId: 'acc_new', keyId: 'key_new' });
    expect(() => link.send([fresh, sampleRecord(MS, { costMicros: 2n ** 63n })])).toThrow(RangeError);
    const next = link.send([sampleRecord(MS + 1, { accountId: 'acc_new', keyId: 'key_new' })]);
    expect(next.batch.reset).toBe(true);
    expect(next.records[0]).toMatchObject({ accountId: 'acc_new', keyId: 'key_new' });
  });

  it('refuse a charge a 64-bit column cannot hold (the batch is lost, counted by its writer)', () => {
    expect(() => pair().send([sampleRecord(MS, { costMicros: 2n ** 63n })])).toThrow(RangeError);
  });

  it('pack an empty batch', () => {
    expect(pair().send([]).records).toEqual([]);
  });
});
