/**
 * A fake OpenAI-compatible API on a real HTTP server, speaking OpenAI's documented wire format:
 * `POST /v1/chat/completions` (JSON `chat.completion`, or with `stream: true` an SSE stream of
 * `data: <chat.completion.chunk>` events, a usage chunk with empty `choices` when
 * `stream_options.include_usage` is true, then `data: [DONE]`) and `POST /v1/embeddings` (float or
 * base64 `encoding_format`) and `POST /v1/responses` (openai-responses-fake.ts). `url` is the base
 * URL INCLUDING `/v1`, as configuration holds it.
 * Answers are derived from the request (see openai-fake-answers.ts for triggers and usage rules).
 *
 * Auth as OpenAI does it: `Authorization: Bearer <key>`; missing or wrong gives 401 with OpenAI's
 * body (`code: invalid_api_key` for a wrong key, the message naming a masked key and a URL, as the
 * real one does). Malformed requests give 400 `invalid_request_error` (body not JSON, no `model`,
 * missing or empty `messages`, no `input`); a model starting with `missing` gives 404
 * `model_not_found`. Error bodies are `{error: {message, type, param, code}}`. Scripted failures
 * come from the shared BehaviourScript: a 429 carries Retry-After; the in-stream error is
 * `data: {"error": {…, "type": "server_error"}}`. Quirks mimic other upstreams: where usage
 * arrives in a stream (Groq `x_groq`, Mistral last chunk), `reasoning_content`, and Mistral's
 * 422 `extra_forbidden` for fields it does not know.
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { BehaviourScript, type FakeBehaviour, pauseBeforeEnd, splitBeforeEnd } from './fake-behaviour.ts';
import {
  asRecord,
  chatChunks,
  chatCompletion,
  embeddingResponse,
  type FakeQuirks,
  fakeAnswer,
  type Json,
} from './openai-fake-answers.ts';
import { answerResponses } from './openai-responses-fake.ts';

export interface OpenAIUpstreamOptions extends FakeQuirks {
  /** The key the fake accepts (default `sk-test-fake-key`). */
  apiKey?: string;
  /** Answer 429 as `insufficient_quota` instead of `rate_limit_exceeded`. */
  quotaExhausted?: boolean;
  /** Top-level request fields answered with Mistral's 422 `extra_forbidden` (e.g. `stream_options`). */
  forbiddenFields?: string[];
}

export interface OpenAIUpstream {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:43123/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_KEY = 'sk-test-fake-key';

/** OpenAI's error body. */
export function openAIError(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): Json {
  return { error: { message, type, param, code } };
}

export const SERVER_ERROR = openAIError(
  'The server had an error while processing your request. Sorry about that!',
  'server_error',
  null,
);

function statusBody(status: number, quotaExhausted: boolean): Json {
  switch (status) {
    case 400:
      return openAIError('Invalid request.', 'invalid_request_error', null);
    case 401:
      return openAIError(
        'Incorrect API key provided: sk-wr***ong.',
        'invalid_request_error',
        'invalid_api_key',
      );
    case 403:
      return openAIError(
        'Country, region, or territory not supported',
        'request_forbidden',
        'unsupported_country_region_territory',
      );
    case 429:
      return quotaExhausted
        ? openAIError(
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
            'insufficient_quota',
            'insufficient_quota',
          )
        : openAIError(
            'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
            'requests',
            'rate_limit_exceeded',
          );
    case 503:
      return openAIError('The engine is currently overloaded, please try again later.', 'server_error', null);
    default:
      return status >= 500
        ? SERVER_ERROR
        : openAIError(`Request failed (HTTP ${status}).`, 'invalid_request_error', null);
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function authError(authorization: string | undefined, apiKey: string): Json | undefined {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) {
    return openAIError(
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
      'invalid_request_error',
      null,
    );
  }
  const given = authorization.slice('Bearer '.length);
  if (given === apiKey) return undefined;
  const masked = `${given.slice(0, 3)}***${given.slice(-4)}`;
  return openAIError(
    `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    'invalid_request_error',
    'invalid_api_key',
  );
}

/** The 4xx answer for a malformed request, or undefined when the request is well-formed. */
function requestError(
  path: string,
  body: Json | undefined,
  options: OpenAIUpstreamOptions,
): [number, Json] | undefined {
  if (body === undefined) {
    return [
      400,
      openAIError('We could not parse the JSON body of your request.', 'invalid_request_error', null),
    ];
  }
  const forbidden = (options.forbiddenFields ?? []).filter((field) => field in body);
  if (forbidden.length > 0) {
    const detail = forbidden.map((field) => ({
      type: 'extra_forbidden',
      loc: ['body', field],
      msg: 'Extra inputs are not permitted',
      input: body[field],
    }));
    return [
      422,
      { object: 'error', message: { detail }, type: 'invalid_request_error', param: null, code: null },
    ];
  }
  if (typeof body.model !== 'string') {
    return [400, openAIError('you must provide a model parameter', 'invalid_request_error', null)];
  }
  if (body.model.startsWith('missing')) {
    const message = `The model \`${body.model}\` does not exist or you do not have access to it.`;
    return [404, openAIError(message, 'invalid_request_error', 'model_not_found')];
  }
  if (path === '/v1/embeddings') {
    const ok = typeof body.input === 'string' || (Array.isArray(body.input) && body.input.length > 0);
    return ok
      ? undefined
      : [400, openAIError("'input' is a required property", 'invalid_request_error', null, 'input')];
  }
  if (!Array.isArray(body.messages)) {
    return [
      400,
      openAIError(
        "Missing required parameter: 'messages'.",
        'invalid_request_error',
        'missing_required_parameter',
        'messages',
      ),
    ];
  }
  if (body.messages.length === 0) {
    const message =
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.";
    return [400, openAIError(message, 'invalid_request_error', 'empty_array', 'messages')];
  }
  return undefined;
}

function parseBody(raw: Buffer): Json | undefined {
  try {
    return asRecord(JSON.parse(raw.toString('utf8')));
  } catch {
    return undefined;
  }
}

async function streamAnswer(res: ServerResponse, events: Json[], behaviour: FakeBehaviour): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const cut = behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream';
  const [sent, tail] = splitBeforeEnd(cut ? events.slice(0, behaviour.afterEvents) : events, behaviour);
  const payloadOf = (list: Json[]) => list.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
  // Wait until the events are handed to the socket, so a cut after them cannot swallow them.
  await new Promise<void>((resolve) => res.write(payloadOf(sent), () => resolve()));
  if (tail.length > 0) {
    await pauseBeforeEnd(behaviour);
    if (res.destroyed) return;
    res.write(payloadOf(tail));
  }
  if (behaviour.kind === 'stall-mid-stream') return; // never ends; close() cuts it
  if (behaviour.kind === 'fail-mid-stream') {
    if (behaviour.mode === 'disconnect') res.socket?.destroy();
    else res.end(`data: ${JSON.stringify(SERVER_ERROR)}\n\n`);
    return;
  }
  res.end('data: [DONE]\n\n');
}

const SERVED_PATHS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'];

async function answer(
  request: RecordedRequest,
  res: ServerResponse,
  behaviour: FakeBehaviour,
  options: OpenAIUpstreamOptions,
) {
  const path = request.url.split('?')[0] ?? '';
  if (request.method !== 'POST' || !SERVED_PATHS.includes(path)) {
    sendJson(res, 404, openAIError(`Invalid URL (${request.method} ${path})`, 'invalid_request_error', null));
    return;
  }
  const unauthorized = authError(request.headers.authorization, options.apiKey ?? DEFAULT_FAKE_KEY);
  if (unauthorized) return sendJson(res, 401, unauthorized);
  const body = parseBody(request.body);
  if (path === '/v1/responses') return answerResponses(res, body, behaviour);
  const invalid = requestError(path, body, options);
  if (invalid || body === undefined) return sendJson(res, invalid?.[0] ?? 400, invalid?.[1]);
  if (path === '/v1/embeddings') return sendJson(res, 200, embeddingResponse(body));
  const fake = fakeAnswer(body, options);
  if (body.stream === true) return streamAnswer(res, chatChunks(body, fake, options), behaviour);
  if (behaviour.kind === 'fail-mid-stream' && behaviour.mode === 'disconnect')
    return void res.socket?.destroy();
  if (behaviour.kind === 'fail-mid-stream') return sendJson(res, 500, SERVER_ERROR);
  sendJson(res, 200, chatCompletion(body, fake));
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startOpenAIUpstream(options: OpenAIUpstreamOptions = {}): Promise<OpenAIUpstream> {
  const script = new BehaviourScript();
  const server = await startFakeUpstream(async (request, res) => {
    const behaviour = script.take();
    if (behaviour.kind === 'status') {
      const headers: Record<string, string> =
        behaviour.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(behaviour.retryAfterSeconds) };
      return sendJson(
        res,
        behaviour.status,
        statusBody(behaviour.status, options.quotaExhausted ?? false),
        headers,
      );
    }
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    await answer(request, res, behaviour, options);
  });
  return { url: `${server.url}/v1`, requests: server.requests, script, close: () => server.close() };
}
