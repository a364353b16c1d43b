/**
 * A graceful stop (docs/reliability.md, "Stopping"): SIGINT to an api PROCESS with streams open and
 * media requests waiting, and to a worker PROCESS with jobs in flight. Within its budget
 * (`SHUTDOWN_TIMEOUT_MS`) the api ends each open stream as its protocol ends a failure (`/v1`: the
 * spec's error event and `[DONE]`; `/anthropic`: an `error` event; `/gemini`: an error chunk),
 * answers the waiting media requests 503 with `Retry-After` in the spec's envelope, charges none
 * of them, and exits 0; so does the worker, its unfinished jobs left to the next worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { billingKeys } from '../../../shared/src/billing/redis-keys.ts';
import { type Connections, closeConnections } from '../../../shared/src/runtime/connections.ts';
import {
  ANTHROPIC_FAKE_KEY,
  type AnthropicUpstream,
  startAnthropicUpstream,
} from '../../fakes/anthropic-upstream.ts';
import { type GeminiUpstream, startGeminiUpstream } from '../../fakes/gemini-upstream.ts';
import { type OpenAIMediaUpstream, startOpenAIMediaUpstream } from '../../fakes/openai-media-upstream.ts';
import { DEFAULT_FAKE_KEY } from '../../fakes/openai-upstream.ts';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import {
  fundedProcessKey,
  openStoreConnections,
  startApiProcess,
  useSpawnedProcesses,
} from '../../helpers/api-process.ts';
import { waitUntil } from '../../helpers/media-gateway.ts';
import { spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const GEMINI_KEY = 'test-gemini-key';
/** The stop budget: work in flight runs on for its first half (it is under 10 s), then is ended. */
const BUDGET_MS = 4_000;

const running = useSpawnedProcesses();
let media: OpenAIMediaUpstream;
let anthropic: AnthropicUpstream;
let gemini: GeminiUpstream;
let env: Record<string, string | undefined>;
let connections: Connections;

beforeAll(async () => {
  [media, anthropic, gemini] = await Promise.all([
    startOpenAIMediaUpstream(),
    startAnthropicUpstream(),
    startGeminiUpstream({ apiKey: GEMINI_KEY }),
  ]);
  env = testEnvironment({
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: String(BUDGET_MS),
    OPENAI_BASE_URL: media.url,
    OPENAI_API_KEY: DEFAULT_FAKE_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    ANTHROPIC_API_KEY: ANTHROPIC_FAKE_KEY,
    GOOGLE_BASE_URL: gemini.url,
    GOOGLE_API_KEY: GEMINI_KEY,
    WORKER_QUEUES: 'image,speech',
  });
  connections = await openStoreConnections(env);
});

afterAll(async () => {
  await closeConnections(connections);
  await Promise.all([media.close(), anthropic.close(), gemini.close()]);
});

/** A streamed answer read as it comes: its text so far, and a promise of all of it. */
async function openStream(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  const state = { text: '' };
  const whole = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return state.text;
      state.text += new TextDecoder().decode(value);
    }
  })();
  return { state, whole };
}

const dataOf = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));

describe('SIGINT with streams open and media requests waiting', () => {
  it('ends every stream in its protocol, answers the waits 503, charges nothing, and exits 0 in budget', {
    timeout: 60_000,
  }, async () => {
    const { api, origin } = await startApiProcess(env, await freePort(), running);
    const worker = spawnEntry('workers/src/main.ts', env);
    running.push(worker);
    await worker.waitFor(/worker ready/);
    const { accountId, key } = await fundedProcessKey(origin, 'stop@example.test');
    const bearer = { authorization: `Bearer ${key}` };

    // Streams that never end on their own, and media jobs that outlast the budget.
    anthropic.script.next({ kind: 'stall-mid-stream', afterEvents: 4 }, 2);
    gemini.script.next({ kind: 'stall-mid-stream', afterEvents: 1 });
    media.script.next({ kind: 'slow', delayMs: 30_000 }, 2);
    const prompt = [{ role: 'user', content: 'a long answer, please' }];
    const v1 = await openStream(`${origin}/v1/chat/completions`, bearer, {
      model: 'anthropic/claude-sonnet-4-5',
      messages: prompt,
      stream: true,
    });
    const native = await openStream(
      `${origin}/anthropic/v1/messages`,
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'claude-sonnet-4-5', max_tokens: 100, stream: true, messages: prompt },
    );
    const geminiStream = await openStream(
      `${origin}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      { 'x-goog-api-key': key },
      { contents: [{ role: 'user', parts: [{ text: 'a long answer, please' }] }] },
    );
    const post = (path: string, body: unknown) =>
      fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const image = post('/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'a cat', n: 1 });
    const speech = post('/v1/audio/speech', { model: 'openai/tts-1', voice: 'alloy', input: 'Hello there.' });
    await waitUntil(() => v1.state.text.includes('Echo'), 10_000);
    await waitUntil(() => native.state.text.includes('content_block_delta'), 10_000);
    await waitUntil(() => geminiStream.state.text.includes('data: '), 10_000);
    await waitUntil(() => media.requests.length === 2, 15_000);

    const stoppedAt = Date.now();
    api.child.kill('SIGINT');
    worker.child.kill('SIGINT');
    const [apiExit, workerExit] = await Promise.all([api.exited(), worker.exited()]);
    const tookMs = Date.now() - stoppedAt;

    // Exit 0: closed within the budget (it exits 1 when the budget runs out).
    expect(apiExit).toEqual({ code: 0, signal: null });
    expect(workerExit, worker.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(api.output()).not.toContain('graceful close timed out');
    expect(tookMs).toBeLessThan(BUDGET_MS + 3_000);

    const v1Lines = dataOf(await v1.whole);
    expect(v1Lines.at(-1)).toBe('[DONE]');
    expect(JSON.parse(v1Lines.at(-2) ?? '{}')).toMatchObject({
      error: { type: 'upstream_error', code: 503, message: expect.any(String) },
    });
    const nativeText = await native.whole;
    expect(nativeText).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
    expect(JSON.parse(dataOf(await geminiStream.whole).at(-1) ?? '{}')).toMatchObject({
      error: { code: 503, status: 'UNAVAILABLE' },
    });
    for (const answer of await Promise.all([image, speech])) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toMatchObject({
        error: { type: 'upstream_error', code: 'upstream_error', message: expect.any(String), param: null },
      });
    }

    expect(await connections.store.money.listLedger(accountId, { limit: 10, kind: 'charge' })).toEqual([]);
    const holds = billingKeys(`${env.QUEUE_PREFIX}:billing:`).walletHolds(accountId);
    expect(await connections.redis.zcount(holds.expiries, `(${Date.now()}`, '+inf')).toBe(0);
    const jobs = await connections.store.mediaJobs.listOwned(accountId, 'image', 10);
    expect(jobs.map((job) => job.status)).toEqual(['cancelled']);
  });
});
