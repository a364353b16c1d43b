import { describe, expect, it } from 'vitest';
import { BackgroundWork } from '../../../../shared/src/billing/background-work.ts';

describe('BackgroundWork', () => {
  it('drains what was tracked before and during the drain, passing failures to their handler', async () => {
    const work = new BackgroundWork();
    const done: string[] = [];
    const failures: unknown[] = [];
    const later = (ms: number, value: string) =>
      new Promise<string>((resolve) => setTimeout(() => resolve(value), ms)).then((v) => done.push(v));
    work.track(later(20, 'first'), (err) => failures.push(err));
    work.track(Promise.reject(new Error('store away')), (err) => failures.push(err));
    // Tracked while the first is still running: the drain waits for it too.
    setTimeout(() => work.track(later(30, 'second'), (err) => failures.push(err)), 10);
    await work.drain();
    expect(done).toEqual(['first', 'second']);
    expect(failures).toEqual([new Error('store away')]);
    await work.drain(); // nothing left: resolves at once
  });
});
