/**
 * A fake Anthropic Messages API: a real HTTP server speaking Anthropic's documented wire format
 * (https://docs.anthropic.com/en/api/messages, .../build-with-claude/streaming, .../api/errors).
 *
 * - `POST /v1/messages` and `POST /v1/messages/count_tokens` (`max_tokens` optional there) only
 *   (404 `not_found_error` otherwise);
 * - auth like Anthropic: `x-api-key` must equal the fake's key, else 401 `authentication_error`;
 *   `anthropic-version` is required, else 400 `invalid_request_error`;
 * - the body must have the documented shape (model, max_tokens, messages with user/assistant roles,
 *   no unknown top-level field, temperature 0..1, non-empty text blocks, each tool_result answering
 *   a tool_use of the previous assistant turn, thinking budget rules), else 400;
 * - answers are deterministic (rules in anthropic-upstream-answer.ts), as JSON or as the event
 *   sequence when `stream: true`;
 * - the `BehaviourScript` makes it answer an error status with Anthropic's body (429 with
 *   `retry-after`), answer slowly, fail mid-stream with `event: error` (overloaded_error by default)
 *   or a cut connection, or stall. For a non-streamed request, `fail-mid-stream` answers the
 *   error type's status (error-event) or cuts the connection (disconnect).
 */
import type { ServerResponse } from 'node:http';
import { type RecordedRequest, startFakeUpstream } from '../helpers/fake-upstream.ts';
import {
  buildMessage,
  type FakeMessage,
  type FakeRequest,
  fakeRequestSchema,
  inputTokens,
} from './anthropic-upstream-answer.ts';
import { messageEvents, type SseFrame } from './anthropic-upstream-events.ts';
import { BehaviourScript, type FakeBehaviour, pauseBeforeEnd, splitBeforeEnd } from './fake-behaviour.ts';

export const ANTHROPIC_FAKE_KEY = 'test-anthropic-key';
const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const STATUS_BY_TYPE = new Map(Object.entries(ERROR_TYPES).map(([status, type]) => [type, Number(status)]));

export interface AnthropicUpstreamOptions {
  apiKey?: string;
  /** Reported as `cache_read_input_tokens` on every answer (default 0). */
  cacheReadInputTokens?: number;
  /** `error.type` of the in-stream error event of `fail-mid-stream` (default `overloaded_error`). */
  streamErrorType?: string;
}

export interface AnthropicUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly script: BehaviourScript;
  /** Streams the client closed before the fake finished them (client-abort tests). */
  abortedStreams(): number;
  close(): Promise<void>;
}

interface Rejection {
  status: number;
  message: string;
}

/** Starts the fake on 127.0.0.1 and a free port. */
export async function startAnthropicUpstream(
  options: AnthropicUpstreamOptions = {},
): Promise<AnthropicUpstream> {
  const apiKey = options.apiKey ?? ANTHROPIC_FAKE_KEY;
  const streamErrorType = options.streamErrorType ?? 'overloaded_error';
  const script = new BehaviourScript();
  let seq = 0;
  let aborted = 0;
  const upstream = await startFakeUpstream(async (request, response) => {
    seq += 1;
    const id = seq;
    const behaviour = script.take();
    if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
    const parsed = checkRequest(request, apiKey);
    if ('status' in parsed) return sendError(response, id, parsed.status, parsed.message);
    if (behaviour.kind === 'status') {
      return sendError(
        response,
        id,
        behaviour.status,
        statusMessage(behaviour.status),
        behaviour.retryAfterSeconds,
      );
    }
    if (request.url.split('?')[0] === COUNT_TOKENS_PATH) {
      return sendJson(response, id, { input_tokens: inputTokens(parsed) }, behaviour, streamErrorType);
    }
    const message = buildMessage(parsed, id, options.cacheReadInputTokens ?? 0);
    if (parsed.stream !== true) return sendJson(response, id, message, behaviour, streamErrorType);
    response.on('close', () => {
      if (!response.writableEnded) aborted += 1;
    });
    await sendStream(response, id, messageEvents(message), behaviour, streamErrorType);
  });
  return { ...upstream, script, abortedStreams: () => aborted };
}

function checkRequest(request: RecordedRequest, apiKey: string): FakeRequest | Rejection {
  const path = request.url.split('?')[0];
  if (request.method !== 'POST' || (path !== '/v1/messages' && path !== COUNT_TOKENS_PATH)) {
    return { status: 404, message: 'Not found' };
  }
  const key = request.headers['x-api-key'];
  if (key === undefined) return { status: 401, message: 'x-api-key header is required' };
  if (key !== apiKey) return { status: 401, message: 'invalid x-api-key' };
  if (request.headers['anthropic-version'] === undefined) {
    return { status: 400, message: 'anthropic-version: header is required' };
  }
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8'));
  } catch {
    return { status: 400, message: 'There was an error parsing the body of your request as JSON.' };
  }
  // count_tokens takes a Messages body without `max_tokens`.
  const counted = path === COUNT_TOKENS_PATH && typeof json === 'object' && json !== null;
  const parsed = fakeRequestSchema.safeParse(counted ? { max_tokens: 1, ...(json as object) } : json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { status: 400, message: `${issue?.path.join('.') ?? 'body'}: ${issue?.message ?? 'invalid'}` };
  }
  const problem = semanticProblem(parsed.data);
  return problem === undefined ? parsed.data : { status: 400, message: problem };
}

/** Rules of the real API beyond field shapes, so adapter mistakes show up as the 400s Anthropic gives. */
function semanticProblem(request: FakeRequest): string | undefined {
  for (const [i, message] of request.messages.entries()) {
    if (typeof message.content === 'string') continue;
    if (message.content.some((b) => b.type === 'text' && b.text === '')) {
      return `messages.${i}: text content blocks must be non-empty`;
    }
    const previous = request.messages[i - 1];
    const uses = typeof previous?.content === 'string' ? [] : (previous?.content ?? []);
    const useIds = new Set(uses.filter((b) => b.type === 'tool_use').map((b) => b.id));
    const orphan = message.content.find((b) => b.type === 'tool_result' && !useIds.has(b.tool_use_id));
    if (orphan !== undefined) {
      return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(orphan.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return thinkingProblem(request);
}

function thinkingProblem(request: FakeRequest): string | undefined {
  if (request.thinking?.type !== 'enabled') return undefined;
  const budget = request.thinking.budget_tokens ?? 0;
  if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (request.max_tokens <= budget) return '`max_tokens` must be greater than `thinking.budget_tokens`';
  const forced = request.tool_choice?.type === 'any' || request.tool_choice?.type === 'tool';
  if (forced) return 'Thinking may not be enabled when `tool_choice` forces tool use.';
  if (request.temperature !== undefined && request.temperature !== 1) {
    return '`temperature` may only be set to 1 when thinking is enabled.';
  }
  return undefined;
}

function statusMessage(status: number): string {
  if (status === 429) return 'Number of request tokens has exceeded your per-minute rate limit.';
  if (status === 529) return 'Overloaded';
  if (status >= 500) return 'Internal server error';
  return 'Your request could not be processed.';
}

function sendError(
  response: ServerResponse,
  id: number,
  status: number,
  message: string,
  retryAfter?: number,
): void {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'request-id': `req_fake_${id}`,
  };
  if (status === 429) headers['retry-after'] = String(retryAfter ?? 1);
  response.writeHead(status, headers);
  response.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: `req_fake_${id}` }));
}

function sendJson(
  response: ServerResponse,
  id: number,
  message: FakeMessage | { input_tokens: number },
  behaviour: FakeBehaviour,
  errorType: string,
): void {
  if (behaviour.kind === 'fail-mid-stream') {
    const status = STATUS_BY_TYPE.get(errorType) ?? 500;
    if (behaviour.mode === 'disconnect') response.socket?.destroy();
    else sendError(response, id, status, statusMessage(status));
    return;
  }
  if (behaviour.kind === 'stall-mid-stream') {
    response.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${id}` });
    response.write('{"id":');
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${id}` });
  response.end(JSON.stringify(message));
}

async function sendStream(
  response: ServerResponse,
  id: number,
  events: SseFrame[],
  behaviour: FakeBehaviour,
  errorType: string,
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': `req_fake_${id}`,
  });
  const cutAt =
    behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream'
      ? behaviour.afterEvents
      : Infinity;
  const [sent, tail] = splitBeforeEnd(events.slice(0, cutAt), behaviour);
  for (const frame of sent) await write(response, frame);
  if (tail.length > 0) await pauseBeforeEnd(behaviour);
  for (const frame of tail) if (!response.destroyed) await write(response, frame);
  if (behaviour.kind === 'stall-mid-stream')
    return new Promise((resolve) => response.on('close', () => resolve()));
  if (behaviour.kind === 'fail-mid-stream') {
    if (behaviour.mode === 'disconnect') {
      response.socket?.destroy();
      return;
    }
    const message = statusMessage(STATUS_BY_TYPE.get(errorType) ?? 500);
    await write(response, { event: 'error', data: { type: 'error', error: { type: errorType, message } } });
  }
  response.end();
}

function write(response: ServerResponse, frame: SseFrame): Promise<void> {
  const text = `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
  return new Promise((resolve) => response.write(text, () => resolve()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
