/**
 * A fake OpenAI media API on a real HTTP server, speaking OpenAI's documented wire formats:
 * `POST /v1/images/generations` (openai-media-images.ts), `POST /v1/audio/speech` and
 * `POST /v1/audio/transcriptions` (openai-media-audio.ts), `POST /v1/videos`,
 * `GET /v1/videos/{id}` and `GET /v1/videos/{id}/content` (openai-media-videos.ts). `url` is the
 * base URL INCLUDING `/v1`, as configuration holds it. Groq's transcription API has the same
 * format: start this fake with Groq's key and send Groq's model ids.
 *
 * Auth as OpenAI does it, on every route including the content download: `Authorization: Bearer
 * <key>`; a missing or wrong key gives 401 with OpenAI's body. Multipart bodies are parsed with
 * the web `Request.formData()`. Scripted failures come from the shared BehaviourScript, taken once
 * per request: `status` answers OpenAI's error body for it (429 with Retry-After when scripted);
 * `slow` delays; `fail-mid-stream` cuts a binary answer (speech, MP4) after half its bytes
 * (`disconnect`) or answers 500 (`error-event`); `stall-mid-stream` sends half and never ends.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { BehaviourScript, type FakeBehaviour } from './fake-behaviour.ts';
import { asRecord } from './openai-fake-answers.ts';
import { speechAnswer, transcriptionAnswer } from './openai-media-audio.ts';
import { imagesAnswer } from './openai-media-images.ts';
import { bytesReply, errorReply, type FakeReply } from './openai-media-reply.ts';
import { FakeVideoJobs, type FakeVideoOptions } from './openai-media-videos.ts';
import { DEFAULT_FAKE_KEY, SERVER_ERROR } from './openai-upstream.ts';

export interface OpenAIMediaUpstreamOptions extends FakeVideoOptions {
  /** The key the fake accepts (default `sk-test-fake-key`). */
  apiKey?: string;
}

export interface OpenAIMediaUpstream {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:43123/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

function statusReply(status: number): FakeReply {
  switch (status) {
    case 401:
      return errorReply(401, 'Incorrect API key provided: sk-wr***ong.', { code: 'invalid_api_key' });
    case 429:
      return errorReply(
        429,
        'Rate limit reached for images per minute: Limit 5, Used 5, Requested 1. Please try again in 12s.',
        { type: 'requests', code: 'rate_limit_exceeded' },
      );
    case 503:
      return errorReply(503, 'The engine is currently overloaded, please try again later.', {
        type: 'server_error',
      });
    default:
      return status >= 500
        ? { kind: 'json', status, body: SERVER_ERROR }
        : errorReply(status, `Request failed (HTTP ${status}).`);
  }
}

function authReply(authorization: string | undefined, apiKey: string): FakeReply | undefined {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) {
    return errorReply(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  const given = authorization.slice('Bearer '.length);
  if (given === apiKey) return undefined;
  const masked = `${given.slice(0, 3)}***${given.slice(-4)}`;
  return errorReply(
    401,
    `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    {
      code: 'invalid_api_key',
    },
  );
}

async function formOf(request: RecordedRequest): Promise<FormData | undefined> {
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return undefined;
  try {
    const body = new Uint8Array(request.body);
    return await new Request('http://fake.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch {
    return undefined;
  }
}

function jsonOf(request: RecordedRequest): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(request.body.toString('utf8')));
  } catch {
    return undefined;
  }
}

const BAD_JSON = errorReply(400, 'We could not parse the JSON body of your request.');
const BAD_FORM = errorReply(400, 'Invalid Content-Type header: expected a multipart/form-data body.');

interface FakeState {
  videos: FakeVideoJobs;
  files: Map<string, Buffer>;
}

async function route(request: RecordedRequest, path: string, state: FakeState): Promise<FakeReply> {
  const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
  const post = request.method === 'POST';
  if (post && path === '/v1/images/generations') {
    const body = jsonOf(request);
    if (body === undefined) return BAD_JSON;
    const { reply, files } = imagesAnswer(body, origin);
    for (const [name, png] of files) state.files.set(name, png);
    return reply;
  }
  if (post && path === '/v1/audio/speech') {
    const body = jsonOf(request);
    return body === undefined ? BAD_JSON : speechAnswer(body);
  }
  if (post && path === '/v1/audio/transcriptions') {
    const form = await formOf(request);
    return form === undefined ? BAD_FORM : transcriptionAnswer(form);
  }
  if (post && path === '/v1/videos') {
    const input = (await formOf(request)) ?? jsonOf(request);
    return input === undefined ? BAD_JSON : state.videos.create(input);
  }
  const video = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(path);
  if (request.method === 'GET' && video) {
    const id = decodeURIComponent(video[1] ?? '');
    return video[2] ? state.videos.content(id) : state.videos.retrieve(id);
  }
  return errorReply(404, `Invalid URL (${request.method} ${path})`);
}

async function write(
  res: ServerResponse,
  reply: FakeReply,
  behaviour: FakeBehaviour,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  const headers = {
    'content-type': reply.kind === 'json' ? 'application/json' : reply.contentType,
    ...extraHeaders,
  };
  const bytes = reply.kind === 'json' ? Buffer.from(JSON.stringify(reply.body)) : reply.body;
  const cut = behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream';
  if (!cut || reply.status !== 200) {
    res.writeHead(reply.status, { ...headers, 'content-length': String(bytes.length) });
    res.end(bytes);
    return;
  }
  if (behaviour.kind === 'fail-mid-stream' && (reply.kind === 'json' || behaviour.mode === 'error-event')) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify(SERVER_ERROR));
    return;
  }
  res.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
  await new Promise<void>((resolve) =>
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => resolve()),
  );
  if (behaviour.kind === 'fail-mid-stream') res.socket?.destroy(); // stall: never ends; close() cuts it
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startOpenAIMediaUpstream(
  options: OpenAIMediaUpstreamOptions = {},
): Promise<OpenAIMediaUpstream> {
  const script = new BehaviourScript();
  const state: FakeState = { videos: new FakeVideoJobs(options), files: new Map() };
  const server = await startFakeUpstream(async (request, res) => {
    const behaviour = script.take();
    if (behaviour.kind === 'status') {
      const retry = behaviour.retryAfterSeconds;
      const headers: Record<string, string> = retry === undefined ? {} : { 'retry-after': String(retry) };
      return write(res, statusReply(behaviour.status), { kind: 'ok' }, headers);
    }
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    const path = request.url.split('?')[0] ?? '';
    const file = /^\/fake-files\/([\w.-]+)$/.exec(path);
    const stored = file ? state.files.get(file[1] ?? '') : undefined;
    if (request.method === 'GET' && stored) return write(res, bytesReply(stored, 'image/png'), behaviour);
    const unauthorized = authReply(request.headers.authorization, options.apiKey ?? DEFAULT_FAKE_KEY);
    await write(res, unauthorized ?? (await route(request, path, state)), behaviour);
  });
  return { url: `${server.url}/v1`, requests: server.requests, script, close: () => server.close() };
}
