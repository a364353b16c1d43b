/**
 * A fake Gemini API (generativelanguage, v1beta and v1 alike) on a real HTTP server, speaking
 * Gemini's own wire format: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`
 * (`?alt=sse`: `data: <GenerateContentResponse>` events separated by CRLF CRLF, no terminator;
 * without it, one JSON array written element by element: `[{…}`, then `\n,\r\n{…}` per element,
 * then `\n]`), `:countTokens`, `:embedContent` and `:batchEmbedContents`. Answers are derived from
 * the request (see gemini-fake-answers.ts for the triggers and usage rules).
 *
 * Auth as Google does it: the key from the `x-goog-api-key` header or the `key` query parameter;
 * none gives 403 PERMISSION_DENIED, a wrong one 400 INVALID_ARGUMENT with reason API_KEY_INVALID
 * (Google never answers 401 for API keys). A model id starting with `missing` gives 404 NOT_FOUND.
 * Scripted failures come from the shared BehaviourScript; a 429 carries Retry-After and RetryInfo;
 * the in-stream error event is `{"error":{"code":503,…,"status":"UNAVAILABLE"}}`.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { BehaviourScript, type FakeBehaviour } from './fake-behaviour.ts';
import {
  asRecord,
  checkEmbedRequest,
  checkGenerateRequest,
  checkSingleEmbedRequest,
  countTokensResponse,
  embedResponse,
  generateResponse,
  type Json,
  singleEmbedResponse,
  streamResponses,
} from './gemini-fake-answers.ts';
import { authError, errorBody, statusError } from './google-errors.ts';

export { FAKE_SIGNATURE } from './gemini-fake-answers.ts';

export interface GeminiUpstreamOptions {
  /** The key the fake accepts (default `test-gemini-key`). */
  apiKey?: string;
}

export interface GeminiUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

export const STREAM_ERROR_EVENT = errorBody(
  503,
  'UNAVAILABLE',
  'The model is overloaded. Please try again later.',
);

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

function sendStatus(res: ServerResponse, status: number, retryAfterSeconds?: number): void {
  const answer = statusError(status, retryAfterSeconds);
  sendJson(res, answer.status, answer.body, answer.headers);
}

function presentedKey(request: RecordedRequest, query: URLSearchParams): string | undefined {
  const header = request.headers['x-goog-api-key'];
  return (typeof header === 'string' ? header : undefined) ?? query.get('key') ?? undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How each stream framing writes its elements: SSE events, or the members of one JSON array. */
const FRAMINGS = {
  sse: {
    contentType: 'text/event-stream',
    element: (event: Json, _index: number) => `data: ${JSON.stringify(event)}\r\n\r\n`,
    end: '',
  },
  array: {
    contentType: 'application/json; charset=UTF-8',
    element: (event: Json, index: number) =>
      `${index === 0 ? '[' : '\n,\r\n'}${JSON.stringify(event, null, 2)}`,
    end: '\n]',
  },
} as const;

/** Writes the events the behaviour allows, then ends, fails (an error element) or stalls. */
async function writeStream(
  res: ServerResponse,
  events: Json[],
  behaviour: FakeBehaviour,
  sse: boolean,
): Promise<void> {
  const framing = sse ? FRAMINGS.sse : FRAMINGS.array;
  res.writeHead(200, { 'content-type': framing.contentType });
  const limit =
    behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream'
      ? behaviour.afterEvents
      : Infinity;
  const written = events.slice(0, limit);
  for (const [index, event] of written.entries()) {
    res.write(framing.element(event, index));
    await sleep(1);
  }
  if (behaviour.kind === 'stall-mid-stream') return;
  if (behaviour.kind === 'fail-mid-stream' && behaviour.mode === 'disconnect') {
    res.socket?.destroy();
    return;
  }
  if (behaviour.kind === 'fail-mid-stream') res.write(framing.element(STREAM_ERROR_EVENT, written.length));
  res.end(framing.end);
}

/** Non-streamed answers under a mid-stream behaviour: a cut connection, a 500 or no answer at all. */
function failWhole(res: ServerResponse, behaviour: FakeBehaviour): boolean {
  if (behaviour.kind === 'stall-mid-stream') return true;
  if (behaviour.kind !== 'fail-mid-stream') return false;
  if (behaviour.mode === 'disconnect') res.socket?.destroy();
  else sendStatus(res, 500);
  return true;
}

function parseBody(request: RecordedRequest): Json | undefined {
  try {
    return asRecord(JSON.parse(request.body.toString('utf8')));
  } catch {
    return undefined;
  }
}

const ROUTE =
  /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/;

async function answer(
  request: RecordedRequest,
  res: ServerResponse,
  behaviour: FakeBehaviour,
  apiKey: string,
): Promise<void> {
  const url = new URL(request.url, 'http://fake');
  const route = ROUTE.exec(url.pathname);
  if (request.method !== 'POST' || !route?.[1] || !route[2]) return sendStatus(res, 404);
  const model = decodeURIComponent(route[1]);
  const method = route[2];
  const denied = authError(presentedKey(request, url.searchParams), apiKey);
  if (denied) return sendJson(res, denied.status, denied.body);
  if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
  if (behaviour.kind === 'status') return sendStatus(res, behaviour.status, behaviour.retryAfterSeconds);
  if (model.startsWith('missing')) {
    const message = `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`;
    return sendJson(res, 404, errorBody(404, 'NOT_FOUND', message));
  }
  const body = parseBody(request);
  if (!body) return sendJson(res, 400, errorBody(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
  if (method === 'batchEmbedContents') {
    const invalid = checkEmbedRequest(body, model);
    if (invalid) return sendJson(res, 400, invalid);
    if (failWhole(res, behaviour)) return;
    return sendJson(res, 200, embedResponse(body));
  }
  if (method === 'embedContent') {
    const invalid = checkSingleEmbedRequest(body, model);
    if (invalid) return sendJson(res, 400, invalid);
    if (failWhole(res, behaviour)) return;
    return sendJson(res, 200, singleEmbedResponse(body));
  }
  if (method === 'countTokens') {
    const counted = countTokensResponse(body, model);
    return sendJson(res, counted.status, counted.body);
  }
  const invalid = checkGenerateRequest(body, model);
  if (invalid) return sendJson(res, 400, invalid);
  if (method === 'streamGenerateContent') {
    return writeStream(res, streamResponses(body, model), behaviour, url.searchParams.get('alt') === 'sse');
  }
  if (failWhole(res, behaviour)) return;
  sendJson(res, 200, generateResponse(body, model));
}

/** Starts a fake Gemini API on 127.0.0.1 and a free port. */
export async function startGeminiUpstream(options: GeminiUpstreamOptions = {}): Promise<GeminiUpstream> {
  const script = new BehaviourScript();
  const apiKey = options.apiKey ?? 'test-gemini-key';
  const upstream = await startFakeUpstream((request, res) => answer(request, res, script.take(), apiKey));
  return { url: upstream.url, requests: upstream.requests, script, close: () => upstream.close() };
}
