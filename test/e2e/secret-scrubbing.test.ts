/**
 * Upstream credentials never reach a client or a log line, whatever their shape. Each provider
 * family gets a fake upstream (a real HTTP server) that echoes the credential it was sent (read from
 * the request's own auth header, so whatever the gateway's configuration holds) in its error body,
 * raw, percent-encoded and base64, and, for chat, in an error event after the stream began. The
 * keys are letters only (no pattern can recognise them) or full of URL-special characters (`/ + = &
 * ? % # "`). The api listens for real; the media worker runs in this process on the same stores,
 * with its own captured logger. The client's answer (HTTP error, SSE error event, a video's error,
 * the stored job record) and every captured log line must hold no form of the key, and must show
 * `[redacted]` where the upstream put it (so the echo did travel the path under test).
 */
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaJobIdFor } from '../../shared/src/media-jobs/media-jobs.repository.ts';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { type Connections, closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { createMediaWorkerDeps } from '../../workers/src/media/create-media-worker-deps.ts';
import { createProcessors } from '../../workers/src/processors/processor-table.ts';
import { closeWorkers, runWorkers } from '../../workers/src/run-workers.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { captureLogger } from '../helpers/capture-logger.ts';
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

type Family = 'openai' | 'anthropic' | 'google' | 'elevenlabs' | 'runway';
const FAMILIES: readonly Family[] = ['openai', 'anthropic', 'google', 'elevenlabs', 'runway'];

/** The keys of one run: letters only, or with URL-special characters. */
const KEY_STYLES: Record<string, (family: Family) => string> = {
  'letters-only': (family) =>
    family === 'openai' ? 'abcdefghijklmnopqrstuvwxyzABCDEF' : `${family}KeyOfLettersOnly`.padEnd(32, 'Q'),
  'URL-special': (family) => `${family}/key+with=special&chars?x%41#y"z~`,
};

/** What the fakes say with the key in it: raw, percent-encoded and base64. */
function echo(key: string): string {
  return `Invalid value for 'user': ${key}; encoded ${encodeURIComponent(key)}; b64 ${Buffer.from(key).toString('base64')}`;
}

/** Every form a leaked key could take in a text or in JSON-serialized log lines. */
function expectNoTrace(text: string, key: string, where: string): void {
  const forms = [
    key,
    encodeURIComponent(key),
    JSON.stringify(key).slice(1, -1),
    Buffer.from(key).toString('base64'),
    Buffer.from(key).toString('base64url'),
  ];
  for (const form of forms) expect(text, `${where} holds ${form}`).not.toContain(form);
}

function headerValue(request: RecordedRequest, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

const bearer = (request: RecordedRequest) => headerValue(request, 'authorization').replace(/^Bearer /, '');

function json(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sse(res: import('node:http').ServerResponse, frames: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(frames.join(''));
}

const data = (value: unknown, event?: string) =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(value)}\n\n`;

const isStream = (request: RecordedRequest) =>
  (JSON.parse(request.body.toString('utf8') || '{}') as { stream?: boolean }).stream === true;

/** The fakes: each echoes the credential it received from its provider's own auth header. */
const FAKES: Record<Family, (request: RecordedRequest, res: import('node:http').ServerResponse) => void> = {
  openai(request, res) {
    const said = echo(bearer(request));
    if (!isStream(request)) {
      return json(res, 400, {
        error: { message: said, type: 'invalid_request_error', param: 'user', code: null },
      });
    }
    sse(res, [
      data({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] }),
      data({ error: { message: said, type: 'server_error', code: 500 } }),
    ]);
  },
  anthropic(request, res) {
    const said = echo(headerValue(request, 'x-api-key'));
    if (!isStream(request)) {
      return json(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: said },
        request_id: 'req_1',
      });
    }
    sse(res, [
      data(
        { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
        'message_start',
      ),
      data(
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        'content_block_start',
      ),
      data(
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
        'content_block_delta',
      ),
      data({ type: 'error', error: { type: 'overloaded_error', message: said } }, 'error'),
    ]);
  },
  google(request, res) {
    const said = echo(headerValue(request, 'x-goog-api-key'));
    if (!request.url.includes(':streamGenerateContent')) {
      return json(res, 400, { error: { code: 400, message: said, status: 'INVALID_ARGUMENT' } });
    }
    sse(res, [
      data({ candidates: [{ index: 0, content: { role: 'model', parts: [{ text: 'Hel' }] } }] }),
      data({ error: { code: 503, message: said, status: 'UNAVAILABLE' } }),
    ]);
  },
  elevenlabs(request, res) {
    json(res, 400, {
      detail: { status: 'voice_not_found', message: echo(headerValue(request, 'xi-api-key')) },
    });
  },
  runway(request, res) {
    const said = echo(bearer(request));
    if (request.method === 'POST') {
      const { promptText } = JSON.parse(request.body.toString('utf8')) as { promptText: string };
      if (promptText.includes('refuse')) return json(res, 400, { error: said });
      return json(res, 200, { id: 'task-1' });
    }
    json(res, 200, {
      id: 'task-1',
      createdAt: new Date().toISOString(),
      status: 'FAILED',
      failure: said,
      failureCode: 'INTERNAL.BAD_OUTPUT',
    });
  },
};

interface Run {
  readonly keys: Record<Family, string>;
  readonly fakes: Record<Family, FakeUpstream>;
  readonly gateway: ListeningApp;
  readonly clientKey: string;
  readonly workerLogs: () => Record<string, unknown>[];
  /** Every captured log line of the api and the worker, serialized. */
  logText(): string;
  close(): Promise<void>;
}

async function startRun(style: (family: Family) => string): Promise<Run> {
  const keys = Object.fromEntries(FAMILIES.map((f) => [f, style(f)])) as Record<Family, string>;
  const started = await Promise.all(FAMILIES.map((f) => startFakeUpstream(FAKES[f])));
  const fakes = Object.fromEntries(FAMILIES.map((f, i) => [f, started[i]])) as Record<Family, FakeUpstream>;
  const env: Record<string, string> = { ADMIN_TOKEN: TEST_ADMIN_TOKEN, VIDEO_POLL_INTERVAL_MS: '20' };
  for (const family of FAMILIES) {
    const name = family.toUpperCase();
    env[`${name}_BASE_URL`] = fakes[family].url;
    env[`${name}_API_KEY`] = keys[family];
  }
  const gateway = await startListeningApp({ env });
  const { config } = gateway;
  const worker = captureLogger('info');
  const connections: Connections = await openConnections(config, 'worker-test', worker.logger);
  const media = await createMediaWorkerDeps(config, connections, worker.logger);
  const connection = createRedis(config.redis, { forBullmq: true });
  const workers: Worker[] = runWorkers({
    connection,
    prefix: config.queues.bullmqPrefix,
    queues: config.worker.queues,
    concurrency: config.worker.concurrency,
    lockDurationMs: config.worker.lockDurationMs,
    stalledIntervalMs: config.worker.stalledIntervalMs,
    processors: createProcessors(media.deps),
    logger: worker.logger,
  });
  const { key: clientKey } = await createFundedKey(gateway.app, {
    topUp: 10_000_000,
    settings: { rate_limit: 3000 },
  });
  return {
    keys,
    fakes,
    gateway,
    clientKey,
    workerLogs: worker.lines,
    logText: () => JSON.stringify([...gateway.logs(), ...worker.lines()]),
    async close() {
      await closeWorkers(workers);
      await connection.quit();
      await media.close();
      await closeConnections(connections);
      await gateway.close();
      await Promise.all(started.map((fake) => fake.close()));
    },
  };
}

async function call(
  run: Run,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; requestId: string | null }> {
  const response = await fetch(`${run.gateway.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${run.clientKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    text: await response.text(),
    requestId: response.headers.get('x-request-id'),
  };
}

const chat = (model: string, stream: boolean) => ({
  model,
  stream,
  messages: [{ role: 'user', content: 'Hello' }],
  ...(model.startsWith('anthropic/') ? { max_tokens: 64 } : {}),
});

/** The key reached the fake, and nothing of it came back; the echo showed up as `[redacted]`. */
function expectScrubbed(run: Run, family: Family, answer: string, where: string): void {
  expect(run.fakes[family].requests.length, `${family} was called`).toBeGreaterThan(0);
  expect(answer, where).toContain('[redacted]');
  expectNoTrace(answer, run.keys[family], where);
  expectNoTrace(run.logText(), run.keys[family], `${where}: logs`);
}

/** A media job's stored record holds no trace of the key either. */
async function expectJobScrubbed(run: Run, family: Family, jobId: string): Promise<void> {
  const job = await run.gateway.services.media.jobs.findById(jobId);
  expect(job?.status).toBe('failed');
  const record = JSON.stringify(job, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  expect(record).toContain('[redacted]');
  expectNoTrace(record, run.keys[family], `${family} job record`);
}

describe.each(Object.entries(KEY_STYLES))('%s upstream keys', (_style, keyOf) => {
  let run: Run;
  beforeAll(async () => {
    run = await startRun(keyOf);
  });
  afterAll(async () => {
    await run?.close();
  });

  it.each([
    ['OpenAI-compatible', 'openai', 'openai/gpt-4o-mini'],
    ['Anthropic', 'anthropic', 'anthropic/claude-haiku-4-5'],
    ['Gemini', 'google', 'google/gemini-2.5-flash'],
  ] as const)('%s: an error body and a mid-stream error event', async (_name, family, model) => {
    const failed = await call(run, 'POST', '/v1/chat/completions', chat(model, false));
    expect(failed.status, failed.text).toBe(400);
    expectScrubbed(run, family, failed.text, `${family} error answer`);
    // The 4xx message is logged (at info) as the client got it: scrubbed, not missing.
    expect(JSON.stringify(run.gateway.logs())).toContain('The provider rejected the request');

    const streamed = await call(run, 'POST', '/v1/chat/completions', chat(model, true));
    expect(streamed.status, streamed.text).toBe(200);
    expect(streamed.text).toContain('Hel');
    expect(streamed.text).toContain('"error"');
    expectScrubbed(run, family, streamed.text, `${family} stream`);
  });

  it('ElevenLabs: a speech error body, in the answer and the stored job', async () => {
    const answer = await call(run, 'POST', '/v1/audio/speech', {
      model: 'elevenlabs/eleven_multilingual_v2',
      input: 'Hello there',
      voice: '21m00Tcm4TlvDq8ikWAM',
    });
    expect(answer.status, answer.text).toBe(400);
    expectScrubbed(run, 'elevenlabs', answer.text, 'elevenlabs answer');
    expect(answer.requestId).not.toBeNull();
    await expectJobScrubbed(run, 'elevenlabs', mediaJobIdFor('speech', answer.requestId ?? ''));
  });

  it('Runway: a refused submission and a failed render, in the video record and the stored job', async () => {
    for (const prompt of ['please refuse this', 'a calm lake at dawn']) {
      const created = await call(run, 'POST', '/v1/videos', { model: 'runway/gen4.5', prompt, duration: 5 });
      expect(created.status, created.text).toBe(202);
      const { id } = JSON.parse(created.text) as { id: string };
      let video = { status: 'in_progress', text: '' };
      for (let tries = 0; video.status === 'in_progress' && tries < 300; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const polled = await call(run, 'GET', `/v1/videos/${id}`);
        video = { status: (JSON.parse(polled.text) as { status: string }).status, text: polled.text };
      }
      expect(video.status, video.text).toBe('failed');
      expectScrubbed(run, 'runway', video.text, `runway video (${prompt})`);
      await expectJobScrubbed(run, 'runway', id);
    }
    expectNoTrace(JSON.stringify(run.workerLogs()), run.keys.runway, 'worker logs');
  });
});
