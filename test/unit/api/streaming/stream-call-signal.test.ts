/**
 * The signal of a stream's upstream call: a client that leaves before output cuts it at once, one
 * that leaves after output lets it drain for `drainMs`; the api's stop cuts it at once, a drain
 * included; and the process-wide stop signal is listened to only while a drain lasts.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StreamCallSignal } from '../../../../api/src/streaming/stream-call-signal.ts';

function setup(drainMs = 60) {
  const answer = new AbortController();
  const stopping = new AbortController();
  const call = new StreamCallSignal({ answer: answer.signal, stopping: stopping.signal, drainMs });
  // As answerSignal: the answer's signal follows the stop.
  const stop = () => {
    stopping.abort();
    answer.abort(stopping.signal.reason);
  };
  return { call, leave: () => answer.abort(), stop, stopping: stopping.signal };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('StreamCallSignal', () => {
  it('is cut at once when the client leaves before any output', () => {
    const { call, leave } = setup();
    leave();
    expect(call.signal.aborted).toBe(true);
    expect(call.cut).toBe('client-gone');
    expect(call.draining).toBe(false);
  });

  it('drains for drainMs when the client leaves after output, then is cut', async () => {
    const { call, leave } = setup(60);
    call.outputRelayed();
    leave();
    expect(call.draining).toBe(true);
    expect(call.signal.aborted).toBe(false);
    await sleep(90);
    expect(call.signal.aborted).toBe(true);
    expect(call.cut).toBe('drain-over');
  });

  it('is cut at once by the stop, before output, after it, or while draining', () => {
    for (const moment of ['before', 'after', 'draining'] as const) {
      const { call, leave, stop } = setup(10_000);
      if (moment !== 'before') call.outputRelayed();
      if (moment === 'draining') leave();
      stop();
      expect(call.signal.aborted).toBe(true);
      expect(call.cut).toBe('stopping');
    }
  });

  it('listens to the process-wide stop only while it drains', () => {
    const { call, leave, stopping } = setup(10_000);
    expect(getEventListeners(stopping, 'abort')).toHaveLength(0);
    call.outputRelayed();
    leave();
    expect(getEventListeners(stopping, 'abort')).toHaveLength(1);
    call.dispose();
    expect(getEventListeners(stopping, 'abort')).toHaveLength(0);
  });

  it('a relay closed by its client counts as the client leaving, even before the connection says so', () => {
    const { call } = setup(10_000);
    call.outputRelayed();
    call.clientLeft();
    expect(call.draining).toBe(true);
    call.dispose();
  });
});
