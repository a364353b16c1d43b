/**
 * The demo simulator behind the chat route interface the use cases call: the same answers as the
 * simulator's own, and a stream shaped as the relay reads every route's (batches of events and a
 * translator), with the usage reported only once every chunk was read.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRoute, ChatStream } from '../../../../../shared/src/providers/chat-route.ts';
import { type ChatRequest, UnsupportedFeatureError } from '../../../../../shared/src/providers/chat-types.ts';
import { DemoChatRoute } from '../../../../../shared/src/providers/demo/demo-chat-route.ts';
import { demoChat, demoEmbeddings } from '../../../../../shared/src/providers/demo/index.ts';

const signal = new AbortController().signal;
const route: ChatRoute = new DemoChatRoute('demo-chat');
const request: ChatRequest = {
  model: 'demo/chat',
  messages: [{ role: 'user', content: 'Tell me about the sea, please.' }],
  reasoning_effort: 'low',
  n: 2,
};

/** Reads a stream as the relay does: each batch's events through the translator. */
async function read<E>(stream: ChatStream<E>) {
  const batches = [];
  for await (const events of stream.batches) {
    batches.push(events.flatMap((event) => stream.translator.onEvent(event)));
  }
  return batches;
}

describe('demo chat route', () => {
  it('is a demo route of its native model', () => {
    expect(route.provider).toBe('demo');
    expect(route.nativeModel).toBe('demo-chat');
  });

  it("completes with the simulator's answer", async () => {
    await expect(route.complete(request, signal)).resolves.toEqual(demoChat.complete(request));
  });

  it("streams the simulator's chunks one a batch (one write each), then reports its usage", async () => {
    const expected = demoChat.stream(request);
    const stream = await route.stream(request, signal);
    expect(stream.translator.finish().usage).toBeUndefined();
    const batches = await read(stream);
    expect(batches).toEqual(expected.chunks.map((chunk) => [chunk]));
    expect(stream.translator.finish().usage).toEqual(expected.usage);
  });

  it('reports no usage for a stream left before its end (a client gone is charged nothing)', async () => {
    const stream = await route.stream(request, signal);
    let count = 0;
    for await (const events of stream.batches) {
      count += events.length;
      if (count === demoChat.stream(request).chunks.length) break;
    }
    expect(stream.translator.finish().usage).toBeUndefined();
  });

  it("embeds with the simulator's vectors, refusing what it refuses as a rejection", async () => {
    const embedding = { model: 'demo/embedding', input: ['a', 'b'], dimensions: 8 };
    await expect(route.embed(embedding, signal)).resolves.toEqual(demoEmbeddings.embed(embedding));
    const refused = route.embed({ ...embedding, dimensions: 0 }, signal);
    await expect(refused).rejects.toBeInstanceOf(UnsupportedFeatureError);
  });
});
