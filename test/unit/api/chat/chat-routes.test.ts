/**
 * The chat and embedding use cases call every route through one interface: the same code serves a
 * model routed to the offline demo simulator and one routed to an HTTP adapter (here OpenAI's, over
 * a scripted client). What reaches the client, in which writes, and what is charged, for each.
 */
import { describe, expect, it } from 'vitest';
import type { CompleteChatInput } from '../../../../api/src/use-cases/complete-chat.ts';
import { completeChat } from '../../../../api/src/use-cases/complete-chat.ts';
import { createEmbeddings } from '../../../../api/src/use-cases/create-embeddings.ts';
import { openChatStream } from '../../../../api/src/use-cases/stream-chat.ts';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import type { ChatRequest, UpstreamRequest } from '../../../../shared/src/providers/chat-types.ts';
import { demoChat, demoEmbeddings } from '../../../../shared/src/providers/demo/index.ts';
import type { UpstreamClient, UpstreamResponse } from '../../../../shared/src/upstream/upstream-client.ts';
import { chargeRecordingDeps, heldAdmission } from '../../../helpers/chat-use-case-fixture.ts';
import { OPENAI_USAGE, openaiDelta } from '../../../helpers/openai-chat-chunks.ts';

const catalogue = loadCatalogue();
const config = loadConfig({
  REDIS_URL: 'redis://127.0.0.1:1',
  MONGO_URL: 'mongodb://127.0.0.1:1',
  OPENAI_API_KEY: 'sk-openai-test',
  OPENAI_BASE_URL: 'http://openai.test/v1',
});

function modelOf(id: string): CatalogueModel {
  const model = catalogue.get(id);
  if (model === undefined) throw new Error(`no model ${id}`);
  return model;
}

/** An answer whose body arrives in `reads` (one network read each). */
function answer(reads: readonly string[], status = 200): UpstreamResponse {
  const whole = reads.join('');
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: {
      async *[Symbol.asyncIterator]() {
        for (const read of reads) yield Buffer.from(read);
      },
      text: async () => whole,
      json: async () => JSON.parse(whole),
      arrayBuffer: async () => new TextEncoder().encode(whole).buffer as ArrayBuffer,
      dump: async () => undefined,
    },
  };
}

/** The process's dependencies with a scripted upstream; `sent` and `charged` record what happened. */
function setup(reads: readonly string[] = []) {
  const sent: UpstreamRequest[] = [];
  const client = {
    send: async (request: UpstreamRequest) => {
      sent.push(request);
      return answer(reads);
    },
  } as unknown as UpstreamClient;
  const { deps, charged } = chargeRecordingDeps(config, client);
  return { deps, sent, charged };
}

function inputFor(modelId: string, request: Partial<ChatRequest> = {}): CompleteChatInput {
  return {
    request: { model: modelId, messages: [{ role: 'user', content: 'Tell me about the sea.' }], ...request },
    model: modelOf(modelId),
    admission: heldAdmission(),
    requestId: 'req_1',
    signal: new AbortController().signal,
    receivedAt: performance.now(),
    stopping: new AbortController().signal,
  };
}

async function writesOf(stream: AsyncGenerator<string>): Promise<string[]> {
  const writes: string[] = [];
  for await (const write of stream) writes.push(write);
  return writes;
}

describe('chat use cases over a demo route', () => {
  it('complete with the simulator and charge its usage, calling no upstream', async () => {
    const { deps, sent, charged } = setup();
    const input = inputFor('demo/chat');
    const completion = await completeChat(deps, input);
    const expected = demoChat.complete(input.request);
    expect(completion.choices[0]?.message.content).toBe(expected.choices[0]?.message.content);
    expect(charged).toEqual([
      { costMicros: tokenCostMicros(input.model.pricing, expected.usage), usage: expect.any(Object) },
    ]);
    expect(sent).toEqual([]);
  });

  it("stream the simulator's chunks one write each, then the usage chunk with [DONE], charged once", async () => {
    const { deps, charged } = setup();
    const input = inputFor('demo/chat', { stream: true, stream_options: { include_usage: true } });
    const writes = await writesOf(await openChatStream(deps, input));
    const expected = demoChat.stream(input.request);
    expect(writes).toHaveLength(expected.chunks.length + 1);
    expect(
      writes.slice(0, -1).every((write) => write.startsWith('data: ') && write.split('data: ').length === 2),
    ).toBe(true);
    expect(writes.at(-1)).toMatch(/^data: \{.*"usage":\{"prompt_tokens":\d+.*\n\ndata: \[DONE\]\n\n$/s);
    expect(charged).toHaveLength(1);
    expect(charged[0]?.costMicros).toBe(tokenCostMicros(input.model.pricing, expected.usage));
  });

  it('charge a demo stream whose client leaves after output in full: it is read on to its end', async () => {
    const { deps, charged } = setup();
    const input = inputFor('demo/chat', { stream: true });
    const stream = await openChatStream(deps, input);
    await stream.next();
    await stream.return(undefined);
    const expected = demoChat.stream(input.request);
    expect(charged.map((charge) => charge.costMicros)).toEqual([
      tokenCostMicros(input.model.pricing, expected.usage),
    ]);
  });

  it("embed with the simulator's vectors", async () => {
    const { deps, charged } = setup();
    const input = { ...inputFor('demo/embedding'), request: { model: 'demo/embedding', input: ['a', 'b'] } };
    const result = await createEmbeddings(deps, input);
    const expected = demoEmbeddings.embed({ model: 'demo-embedding', input: ['a', 'b'] });
    expect(result.data.map((item) => item.embedding)).toEqual(expected.vectors);
    expect(charged).toHaveLength(1);
  });
});

describe('chat use cases over an HTTP route', () => {
  it("complete with the adapter's request and answer", async () => {
    const reply = {
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Waves.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    };
    const { deps, sent, charged } = setup([JSON.stringify(reply)]);
    const completion = await completeChat(deps, inputFor('openai/gpt-4o-mini'));
    expect(completion.choices[0]?.message.content).toBe('Waves.');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('http://openai.test/v1/chat/completions');
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({ model: 'gpt-4o-mini' });
    expect(charged).toHaveLength(1);
  });

  it('stream what each upstream read brought in one write, and charge the usage it reported', async () => {
    const { deps, charged } = setup([
      openaiDelta('Wa') + openaiDelta('ves'),
      openaiDelta('.'),
      `${OPENAI_USAGE}data: [DONE]\n\n`,
    ]);
    const input = inputFor('openai/gpt-4o-mini', { stream: true });
    const writes = await writesOf(await openChatStream(deps, input));
    expect(writes.map((write) => write.split('data: ').length - 1)).toEqual([2, 1, 1]);
    expect(writes.at(-1)).toBe('data: [DONE]\n\n');
    const usage = { inputTokens: 7, cachedInputTokens: 0, outputTokens: 3, reasoningTokens: 0 };
    expect(charged.map((charge) => charge.costMicros)).toEqual([tokenCostMicros(input.model.pricing, usage)]);
  });

  it('fail over to the next route when the first answers 503', async () => {
    const { deps, sent } = setup();
    const reply = {
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Waves.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    };
    (deps.client as { send: unknown }).send = async (request: UpstreamRequest) => {
      sent.push(request);
      return sent.length === 1
        ? answer(['{"error":{"message":"busy"}}'], 503)
        : answer([JSON.stringify(reply)]);
    };
    const completion = await completeChat(deps, inputFor('openai/gpt-4o-mini'));
    expect(completion.choices[0]?.message.content).toBe('Waves.');
    expect(sent.map((request) => JSON.parse(request.body).model)).toEqual([
      'gpt-4o-mini',
      'gpt-4o-mini-2024-07-18',
    ]);
  });

  it('embed asking the upstream for floats, answering base64 when asked', async () => {
    const reply = { data: [{ index: 0, embedding: [0.5] }], usage: { prompt_tokens: 1, total_tokens: 1 } };
    const { deps, sent } = setup([JSON.stringify(reply)]);
    const input = {
      ...inputFor('openai/text-embedding-3-small'),
      request: { model: 'openai/text-embedding-3-small', input: 'a', encoding_format: 'base64' as const },
    };
    const result = await createEmbeddings(deps, input);
    expect(sent.map((request) => JSON.parse(request.body).encoding_format)).toEqual(['float']);
    expect(result.data[0]?.embedding).toBe(Buffer.from(new Float32Array([0.5]).buffer).toString('base64'));
  });
});
