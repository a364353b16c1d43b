/**
 * Who a request's hold belongs to: the request's until a handler hands it on; the release at the
 * response's end takes it only while it is the request's, only once, and only when it holds something.
 */
import { describe, expect, it } from 'vitest';
import {
  type AdmissionContext,
  handHoldTo,
  takeHoldForRelease,
} from '../../../../api/src/admission/admission-context.ts';
import type { ResolvedKey } from '../../../../shared/src/accounts/key-cache.ts';

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
});
