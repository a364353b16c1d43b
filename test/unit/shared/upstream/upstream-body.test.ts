import type { Dispatcher } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { UpstreamBody } from '../../../../shared/src/upstream/upstream-body.ts';

/** The dispatcher's side of one call, recording what the body asked of the connection. */
function controller() {
  const calls: string[] = [];
  const fake = {
    paused: false,
    aborted: false,
    reason: null,
    pause() {
      calls.push('pause');
      fake.paused = true;
    },
    resume() {
      calls.push('resume');
      fake.paused = false;
    },
    abort() {
      calls.push('abort');
      fake.aborted = true;
    },
  };
  return { fake: fake as unknown as Dispatcher.DispatchController, calls };
}

describe('UpstreamBody', () => {
  it('pauses the connection past 64 KB unread and resumes it when the reader takes them, all at once', async () => {
    const { fake, calls } = controller();
    const body = new UpstreamBody(fake);
    const reader = body[Symbol.asyncIterator]();
    // 5 chunks of 16 KB wait unread: the fifth crosses the high-water mark.
    for (let i = 0; i < 5; i += 1) body.push(Buffer.alloc(16 * 1024, 97 + i));
    expect(calls).toEqual(['pause']);
    const first = await reader.next();
    expect(calls).toEqual(['pause', 'resume']);
    expect(Buffer.from(first.value as Uint8Array).byteLength).toBe(80 * 1024);
    expect((first.value as Uint8Array)[64 * 1024]).toBe(97 + 4);
    body.push(Buffer.from('end'));
    body.end();
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe('end');
    expect((await reader.next()).done).toBe(true);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('gives the reader what came before a failure, then the failure', async () => {
    const { fake } = controller();
    const body = new UpstreamBody(fake);
    const boom = new Error('connection reset');
    body.push(Buffer.from('a'));
    body.push(Buffer.from('b'));
    body.fail(boom);
    const reader = body[Symbol.asyncIterator]();
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe('ab');
    await expect(reader.next()).rejects.toBe(boom);
  });

  it('aborts the call when its reader stops before the end', async () => {
    const { fake, calls } = controller();
    const body = new UpstreamBody(fake);
    body.push(Buffer.from('first'));
    for await (const _ of body) break;
    expect(calls).toEqual(['abort']);
  });

  it('reads a whole body of many chunks and takes with one copy at the end', async () => {
    const { fake } = controller();
    const body = new UpstreamBody(fake);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const text = body.text();
      for (const piece of ['{"a":', '1,', '"b":']) body.push(Buffer.from(piece));
      await new Promise((resolve) => setImmediate(resolve));
      for (const piece of ['"x', 'y"', '}']) body.push(Buffer.from(piece));
      body.end();

      expect(await text).toBe('{"a":1,"b":"xy"}');
      // Two takes of three chunks each: joined once, not once per take and again at the end.
      expect(concat).toHaveBeenCalledTimes(1);
    } finally {
      concat.mockRestore();
    }
  });
});
