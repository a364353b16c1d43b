import { describe, expect, it } from 'vitest';
import { createAdmitBatcher } from '../../../../shared/src/billing/admit-batcher.ts';
import type { AdmitCall } from '../../../../shared/src/billing/billing-scripts.ts';

const holds = { expiries: 'e', amounts: 'a' };
function call(requestId: string): AdmitCall {
  return {
    rateWindow: 'r',
    walletSnapshot: 'w',
    spendSnapshot: 's',
    walletHolds: holds,
    keyHolds: holds,
    args: [10, 60_000, requestId, 1n, 1_000, 0n, null, true, true, false],
  };
}

describe('createAdmitBatcher', () => {
  it('sends the calls of one turn together, and a full batch at once', async () => {
    const sent: string[][] = [];
    const admit = createAdmitBatcher(async (calls) => {
      sent.push(calls.map((c) => c.args[2]));
      return calls.map(() => ['admitted', 10, 9, 60_000]);
    }, 3);
    const replies = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => admit(call(id))));
    expect(sent).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(replies).toHaveLength(5);
    // A later turn starts a new batch.
    await admit(call('f'));
    expect(sent.at(-1)).toEqual(['f']);
  });

  it('fails a call the script left without a reply, and answers the others', async () => {
    const admit = createAdmitBatcher(async () => [['admitted', 10, 9, 60_000]]);
    const [first, second] = await Promise.allSettled([admit(call('a')), admit(call('b'))]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ message: expect.stringMatching(/no reply for request b/) }),
    });
  });

  it('fails every call with an Error when the script call fails with something else', async () => {
    const admit = createAdmitBatcher(() => Promise.reject('connection lost'));
    const outcomes = await Promise.allSettled([admit(call('a')), admit(call('b'))]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(Error);
      expect(String(reason)).toMatch(/connection lost/);
    }
  });
});
