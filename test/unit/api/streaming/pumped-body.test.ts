import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { pumpedBody } from '../../../../api/src/streaming/pumped-body.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A generator of `count` 8 KB values that records how far it was asked and whether it closed. */
function counted(count: number, { slow = false } = {}) {
  const state = { made: 0, closed: false };
  async function* values(): AsyncGenerator<string> {
    try {
      for (let i = 0; i < count; i++) {
        if (slow) await tick();
        state.made += 1;
        yield `${String(i).padStart(4, '0')}${'x'.repeat(8 * 1024 - 4)}`;
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, source: values() };
}

describe('pumpedBody', () => {
  it('passes every value on, in order, and ends', async () => {
    const { state, source } = counted(5);
    const seen: string[] = [];
    await pipeline(
      pumpedBody(source),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          seen.push(chunk.toString().slice(0, 4));
          done();
        },
      }),
    );
    expect(seen).toEqual(['0000', '0001', '0002', '0003', '0004']);
    expect(state.closed).toBe(true);
  });

  it('asks the generator for more only while the body is read (backpressure)', async () => {
    const { state, source } = counted(1000);
    const body = pumpedBody(source);
    body.pause();
    body.read(0); // starts the pump without taking anything
    for (let i = 0; i < 5; i++) await tick();
    // The default high-water mark (64 KB) holds eight values of 8 KB; the pump stops there.
    expect(state.made).toBeGreaterThan(0);
    expect(state.made).toBeLessThan(12);
    const before = state.made;
    body.read();
    for (let i = 0; i < 5; i++) await tick();
    expect(state.made).toBeGreaterThan(before);
    expect(state.made).toBeLessThan(30);
    body.destroy();
  });

  it('closes the generator when the body is destroyed (its finally runs)', async () => {
    const { state, source } = counted(1000, { slow: true });
    const body = pumpedBody(source);
    body.resume();
    for (let i = 0; i < 3; i++) await tick();
    body.destroy();
    for (let i = 0; i < 5; i++) await tick();
    expect(state.closed).toBe(true);
    expect(state.made).toBeLessThan(1000);
  });

  it('destroys the body with the error the generator throws', async () => {
    async function* broken(): AsyncGenerator<string> {
      yield 'data: one\n\n';
      throw new Error('the provider broke the stream off');
    }
    const chunks: string[] = [];
    const body = pumpedBody(broken());
    body.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    const error = await new Promise<Error>((resolve) => body.on('error', resolve));
    expect(error.message).toBe('the provider broke the stream off');
    expect(chunks).toEqual(['data: one\n\n']);
    expect(body.destroyed).toBe(true);
  });

  it('hands each value to beforePush just before it is pushed', async () => {
    const order: string[] = [];
    async function* two(): AsyncGenerator<string> {
      yield 'a';
      yield 'b';
    }
    const body = pumpedBody(two(), (value) => order.push(`before ${value}`));
    body.on('data', (chunk: Buffer) => order.push(`data ${chunk.toString()}`));
    await new Promise((resolve) => body.on('end', resolve));
    expect(order).toEqual(['before a', 'data a', 'before b', 'data b']);
  });
});
