import { randomBytes } from 'node:crypto';
import { formatRequestId, type RequestRecord } from '../../shared/src/request-log/request-record.ts';

/** A record of `ms` with fresh random id bytes; fields overridable. */
export function sampleRecord(ms: number, fields: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: formatRequestId(ms, randomBytes(12)),
    createdMs: ms,
    accountId: 'acc_1',
    keyId: 'key_1',
    keyLast4: 'a1b2',
    method: 'POST',
    path: '/v1/chat/completions',
    endpoint: 'chat',
    model: 'openai/gpt-4o-mini',
    provider: 'openai',
    channelId: null,
    attempts: 1,
    status: 200,
    errorCode: null,
    outcome: 'completed',
    stream: false,
    inputTokens: 12,
    outputTokens: 34,
    cachedTokens: 5,
    reasoningTokens: 2,
    costMicros: 1_234_567n,
    latencyMs: 321,
    ttftMs: null,
    ip: '203.0.113.7',
    ...fields,
  };
}
