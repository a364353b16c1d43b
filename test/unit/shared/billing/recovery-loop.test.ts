import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRecoveryLoop } from '../../../../shared/src/billing/recovery-loop.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('startRecoveryLoop', () => {
  it('recovers every minute, logs a failed round without stopping, and stops when told', async () => {
    vi.useFakeTimers();
    const { logger, lines } = captureLogger('error');
    const calls: number[] = [];
    const billing = {
      recoverPendingEntries: (olderThanMs: number) => {
        calls.push(olderThanMs);
        return calls.length === 1 ? Promise.reject(new Error('MongoDB is away')) : Promise.resolve(0);
      },
    };
    const stop = startRecoveryLoop(billing, logger);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([60_000]);
    expect(lines().map((line) => line.msg)).toEqual(['recovering pending ledger entries failed']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(2);
    stop();
    await vi.advanceTimersByTimeAsync(180_000);
    expect(calls).toHaveLength(2);
  });
});
