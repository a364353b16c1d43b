/**
 * What a streamed chat whose client leaves is charged, and how the api's stop ends a stream
 * (docs/chat.md, "A client that leaves"): the relay over a scripted OpenAI upstream whose body
 * arrives read by read, stalls until its call is aborted, or fails, and records that abort.
 */
import { describe, expect, it } from 'vitest';
import type { CompleteChatInput } from '../../../../api/src/use-cases/complete-chat.ts';
import { openChatStream } from '../../../../api/src/use-cases/stream-chat.ts';
import { jsonCharacterCount } from '../../../../shared/src/billing/hold-estimate.ts';
import { tokenCostMicros } from '../../../../shared/src/billing/token-pricing.ts';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import type { UpstreamClient, UpstreamResponse } from '../../../../shared/src/upstream/upstream-client.ts';
import { chargeRecordingDeps, heldAdmission } from '../../../helpers/chat-use-case-fixture.ts';
import { OPENAI_STOP, OPENAI_USAGE, openaiDelta, openaiSse } from '../../../helpers/openai-chat-chunks.ts';

const DRAIN_MS = 150;
const config = loadConfig({
  REDIS_URL: 'redis://127.0.0.1:1',
  OPENAI_API_KEY: 'sk-openai-test',
  OPENAI_BASE_URL: 'http://openai.test/v1',
  STREAM_DRAIN_MS: String(DRAIN_MS),
});
const model = loadCatalogue().get('openai/gpt-4o-mini') as CatalogueModel;

const FAILURE = openaiSse({ error: { message: 'overloaded', type: 'server_error', code: null } });
const REPORTED = { inputTokens: 7, cachedInputTokens: 0, outputTokens: 3, reasoningTokens: 0 };

/** A read of the upstream body: text, a pause before the next, or a stall until the call is aborted. */
type Read = string | { readonly pauseMs: number } | 'stall';

/** An upstream whose one streamed answer arrives as `reads`; `aborted` tells whether its call was cut. */
function upstream(reads: readonly Read[]) {
  const state = { aborted: false };
  const client = {
    send: async (_request: unknown, signal: AbortSignal): Promise<UpstreamResponse> => {
      signal.addEventListener('abort', () => {
        state.aborted = true;
      });
      const body = {
        async *[Symbol.asyncIterator]() {
          for (const read of reads) {
            if (signal.aborted) throw signal.reason;
            if (read === 'stall') await waitOrAbort(undefined, signal);
            else if (typeof read === 'string') yield Buffer.from(read);
            else await waitOrAbort(read.pauseMs, signal);
          }
        },
      };
      return { status: 200, headers: {}, body: body as unknown as UpstreamResponse['body'] };
    },
  } as unknown as UpstreamClient;
  return { client, state };
}

function waitOrAbort(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

function setup(reads: readonly Read[]) {
  const { client, state } = upstream(reads);
  const { deps, charged } = chargeRecordingDeps(config, client);
  const client$ = new AbortController();
  const stop = new AbortController();
  const input: CompleteChatInput = {
    request: {
      model: model.id,
      messages: [{ role: 'user', content: 'Tell me about the sea.' }],
      stream: true,
    },
    model,
    admission: heldAdmission(),
    requestId: 'req_1',
    signal: client$.signal,
    receivedAt: performance.now(),
    stopping: stop.signal,
  };
  // As answerSignal: the answer's signal follows the stop too.
  const halt = () => {
    stop.abort();
    client$.abort(stop.signal.reason);
  };
  return { deps, input, charged, state, leave: () => client$.abort(), stop: halt };
}

/** The client leaves after reading `writes` writes: its connection closes, and so does the relay. */
async function readThenLeave(stream: AsyncGenerator<string>, writes: number, leave: () => void) {
  const read: string[] = [];
  for (let i = 0; i < writes; i += 1) {
    const next = await stream.next();
    if (next.done !== true) read.push(next.value);
  }
  leave();
  await stream.return(undefined);
  return read;
}

const costOf = (usage: typeof REPORTED) => tokenCostMicros(model.pricing, usage);

describe('a stream whose client leaves after output', () => {
  it('reads the upstream on to its usage and charges it, once', async () => {
    const t = setup([
      openaiDelta('Wa'),
      openaiDelta('ves.'),
      { pauseMs: 40 },
      OPENAI_STOP + OPENAI_USAGE,
      'data: [DONE]\n\n',
    ]);
    const read = await readThenLeave(await openChatStream(t.deps, t.input), 2, t.leave);
    expect(read.join('')).toContain('ves.');
    expect(t.charged).toEqual([
      { costMicros: costOf(REPORTED), usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0 } },
    ]);
    expect(t.state.aborted).toBe(false);
  });

  it('cuts an upstream that does not end within STREAM_DRAIN_MS and charges what was read', async () => {
    const t = setup([openaiDelta('Waves and '), openaiDelta('more waves.'), 'stall']);
    const started = Date.now();
    await readThenLeave(await openChatStream(t.deps, t.input), 2, t.leave);
    expect(Date.now() - started).toBeGreaterThanOrEqual(DRAIN_MS - 20);
    expect(t.state.aborted).toBe(true);
    const usage = {
      inputTokens: Math.ceil(jsonCharacterCount(t.input.request.messages) / 4),
      cachedInputTokens: 0,
      outputTokens: Math.ceil('Waves and more waves.'.length / 4),
      reasoningTokens: 0,
    };
    expect(t.charged.map((charge) => charge.costMicros)).toEqual([costOf(usage)]);
  });

  it('charges nothing when the upstream fails after the client left', async () => {
    const t = setup([openaiDelta('Waves'), { pauseMs: 30 }, FAILURE]);
    await readThenLeave(await openChatStream(t.deps, t.input), 1, t.leave);
    expect(t.charged).toEqual([]);
  });

  it('is cut at once by the api stopping, and charged what was read', async () => {
    const t = setup([openaiDelta('Waves'), 'stall']);
    const stream = await openChatStream(t.deps, t.input);
    await stream.next();
    t.leave();
    const closed = stream.return(undefined);
    t.stop();
    await closed;
    expect(t.state.aborted).toBe(true);
    expect(t.charged).toHaveLength(1);
  });
});

describe('a stream whose client leaves before any output', () => {
  it('aborts the upstream at once and charges nothing it did not report', async () => {
    const t = setup([{ pauseMs: 30 }, openaiDelta('Waves'), OPENAI_STOP + OPENAI_USAGE]);
    const stream = await openChatStream(t.deps, t.input);
    const first = stream.next();
    t.leave();
    await first;
    await stream.return(undefined);
    expect(t.state.aborted).toBe(true);
    expect(t.charged).toEqual([]);
  });
});

describe('a stream open when the api stops', () => {
  it('ends with a 503 error event and [DONE], the upstream cut, nothing charged', async () => {
    const t = setup([openaiDelta('Waves'), 'stall']);
    const stream = await openChatStream(t.deps, t.input);
    const writes = [(await stream.next()).value];
    const next = stream.next();
    t.stop();
    writes.push((await next).value);
    expect((await stream.next()).done).toBe(true);
    expect(writes[1]).toMatch(
      /^data: \{"error":\{"message":".*","type":"upstream_error","code":503\}\}\n\ndata: \[DONE\]\n\n$/,
    );
    expect(t.state.aborted).toBe(true);
    expect(t.charged).toEqual([]);
  });
});
