/**
 * Who a request's hold belongs to: the request's until a handler hands it on; the release at the
 * response's end takes it only while it is the request's, only once, and only when it holds something.
 */
import { describe, expect, it } from 'vitest';
import {
  type AdmissionContext,
  handHoldTo,
  queueChargeReplacingHold,
  takeHoldForRelease,
} from '../../../../api/src/admission/admission-context.ts';
import type { ResolvedKey } from '../../../../shared/src/accounts/key-cache.ts';
import { SettlementClosedError } from '../../../../shared/src/billing/settlement-batcher.ts';
import { AppError } from '../../../../shared/src/errors/app-error.ts';

function admission(estimateMicros = 1_000n): AdmissionContext {
  return {
    key: { id: 'key_1', accountId: 'acct_1' } as ResolvedKey,
    holdId: 'req_1',
    estimateMicros,
    rateLimit: { limit: 60, remaining: 59 },
    holdOwner: 'request',
  };
}

describe('a request hold', () => {
  it('is taken for its release once, while it is the request’s', () => {
    const held = admission();
    expect(takeHoldForRelease(held)).toBe(true);
    expect(held.holdOwner).toBe('released');
    expect(takeHoldForRelease(held)).toBe(false);
  });

  it('handed to the settlement or to a job is never released by the request', () => {
    for (const owner of ['settlement', 'job'] as const) {
      const held = admission();
      handHoldTo(held, owner);
      expect(takeHoldForRelease(held)).toBe(false);
      expect(held.holdOwner).toBe(owner);
    }
  });

  it('is not released when it holds nothing (a free request)', () => {
    const free = admission(0n);
    expect(takeHoldForRelease(free)).toBe(false);
    expect(free.holdOwner).toBe('request');
  });

  it('may still go to the settlement after its release (tokens reported before a client left)', () => {
    const held = admission();
    expect(takeHoldForRelease(held)).toBe(true);
    handHoldTo(held, 'settlement');
    expect(held.holdOwner).toBe('settlement');
    expect(takeHoldForRelease(held)).toBe(false);
  });

  it('goes to the settlement once its charge is queued, even while the queue makes the caller wait', async () => {
    const held = admission();
    let admitWritten: () => void = () => undefined;
    const waiting = queueChargeReplacingHold(held, () => new Promise((resolve) => (admitWritten = resolve)));
    expect(held.holdOwner).toBe('settlement');
    admitWritten();
    await waiting;
  });

  it('stays the request’s, to be released, when its charge is refused before it was queued', () => {
    const held = admission();
    const refused = (() => {
      try {
        void queueChargeReplacingHold(held, () => {
          throw new SettlementClosedError();
        });
      } catch (err) {
        return err;
      }
    })();
    // Answered as the restart it is (503, Retry-After), not as a bug.
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: 503, type: 'upstream_error' });
    expect(held.holdOwner).toBe('request');
    expect(() =>
      queueChargeReplacingHold(held, () => {
        throw new RangeError('invalid charge');
      }),
    ).toThrow(RangeError);
    expect(takeHoldForRelease(held)).toBe(true);
  });
});
