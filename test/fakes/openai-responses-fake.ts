/**
 * OpenAI's Responses API (`POST /v1/responses`) for the fake OpenAI upstream, in OpenAI's documented
 * wire format (https://platform.openai.com/docs/api-reference/responses/object, …/responses-streaming,
 * and openai-node's src/resources/responses/responses.ts): a `response` object, or with
 * `stream: true` the event sequence `response.created`, `response.in_progress`, per output item
 * `response.output_item.added`, its parts (`response.reasoning_summary_part.added`,
 * `response.reasoning_summary_text.delta`/`.done`, `response.reasoning_summary_part.done`;
 * `response.content_part.added`, `response.output_text.delta`/`.done`, `response.content_part.done`;
 * `response.function_call_arguments.delta`/`.done`) and `response.output_item.done`, then
 * `response.completed` (or `response.incomplete`) carrying the whole response. Every event is
 * `event: <type>` + `data: <json>` with its `type` and a `sequence_number` from 0; no `[DONE]`.
 *
 * Answers derive from the request only:
 * - text `Echo: <last user text>`, or `Tool result received: <output>` after a
 *   `function_call_output` item; a `function_call` item per `function` tool whose name the last
 *   user text mentions (unless `tool_choice` is `none`), `call_id` `call_fake_<i>`;
 * - reasoning models (`gpt-5…`, `o…`) reason unless `reasoning.effort` is `none`: a `reasoning`
 *   item first and 16 reasoning tokens; its summary (`Thinking about: <text>`) only when
 *   `reasoning.summary` is set, its `encrypted_content` only with `include:
 *   ["reasoning.encrypted_content"]`;
 * - usage: input = ceil(characters of `instructions` and input texts / 4), cached as the chat
 *   fake caches; output = ceil(text / 4) + ceil(arguments / 4) per call + reasoning; above
 *   `max_output_tokens` the response is `incomplete` (`max_output_tokens`), cut to fit.
 *
 * Refusals as OpenAI words them (`{error: {message, type, param, code}}`, 400): a body that is not
 * JSON, no `model`, `temperature` outside 0–2, `max_output_tokens` below 16, a `truncation` other
 * than `auto` or `disabled` (the message quotes the value, as OpenAI's does), and `temperature` or
 * `top_p` other than 1 on a reasoning model reasoning (effort not `none`). `fail-mid-stream` ends a stream with the documented `error` event
 * (or a cut connection); a non-streamed request answers 500 (or a cut connection) instead.
 */
import type { ServerResponse } from 'node:http';
import { type FakeBehaviour, pauseBeforeEnd, splitBeforeEnd } from './fake-behaviour.ts';
import {
  asRecord,
  cachedTokens,
  FAKE_CREATED,
  fakeTokens,
  type Json,
  pieces,
} from './openai-fake-answers.ts';

/** Reasoning tokens a reasoning model spends on every answer. */
export const FAKE_RESPONSES_REASONING_TOKENS = 16;
/** The smallest `max_output_tokens` OpenAI accepts. */
const MIN_MAX_OUTPUT_TOKENS = 16;

let sequence = 0;

function errorBody(message: string, param: string | null, code: string | null): Json {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

const STREAM_SERVER_ERROR = {
  code: 'server_error',
  message: 'The server had an error while processing your request. Sorry about that!',
  param: null,
};

function isReasoningModel(model: string): boolean {
  return model.startsWith('gpt-5') || /^o\d/.test(model);
}

/** The 400 OpenAI gives a malformed Responses body, or undefined when it is well formed. */
export function responsesRequestError(body: Json | undefined): Json | undefined {
  if (body === undefined) return errorBody('We could not parse the JSON body of your request.', null, null);
  if (typeof body.model !== 'string') {
    return errorBody("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  const temperature = body.temperature;
  if (typeof temperature === 'number' && (temperature < 0 || temperature > 2)) {
    const bound =
      temperature < 0
        ? 'below minimum value. Expected a value >= 0'
        : 'above maximum value. Expected a value <= 2';
    const code = temperature < 0 ? 'decimal_below_min_value' : 'decimal_above_max_value';
    return errorBody(
      `Invalid 'temperature': decimal ${bound}, but got ${temperature} instead.`,
      'temperature',
      code,
    );
  }
  const max = body.max_output_tokens;
  if (typeof max === 'number' && max < MIN_MAX_OUTPUT_TOKENS) {
    return errorBody(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_MAX_OUTPUT_TOKENS}, but got ${max} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    );
  }
  const truncation = body.truncation;
  if (truncation !== undefined && truncation !== null && truncation !== 'auto' && truncation !== 'disabled') {
    return errorBody(
      `Invalid value: '${String(truncation)}'. Supported values are: 'auto' and 'disabled'.`,
      'truncation',
      'invalid_value',
    );
  }
  const reasons = isReasoningModel(body.model) && asRecord(body.reasoning)?.effort !== 'none';
  for (const param of ['temperature', 'top_p']) {
    const value = body[param];
    if (reasons && value !== undefined && value !== null && value !== 1) {
      return errorBody(
        `Unsupported value: '${param}' does not support ${String(value)} with this model. Only the default (1) value is supported.`,
        param,
        'unsupported_value',
      );
    }
  }
  return undefined;
}

/** The input items of a body (`input` as a string is one user message). */
function inputItems(body: Json): Json[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return Array.isArray(body.input) ? body.input.map((item) => asRecord(item) ?? {}) : [];
}

function itemText(item: Json): string {
  if (item.type === 'function_call_output') return typeof item.output === 'string' ? item.output : '';
  const content = item.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => String(asRecord(part)?.text ?? '')).join('');
}

interface FakeCall {
  name: string;
  call_id: string;
  arguments: string;
}

function functionCalls(body: Json, userText: string, afterTool: boolean): FakeCall[] {
  const tools = Array.isArray(body.tools) ? body.tools.map((tool) => asRecord(tool) ?? {}) : [];
  if (afterTool || body.tool_choice === 'none') return [];
  return tools
    .filter(
      (tool) => tool.type === 'function' && typeof tool.name === 'string' && userText.includes(tool.name),
    )
    .map((tool, i) => ({
      name: String(tool.name),
      call_id: `call_fake_${i}`,
      arguments: JSON.stringify({ input: userText.slice(0, 40) }),
    }));
}

/** The `response` object answering `body` (complete, or `incomplete` when cut at `max_output_tokens`). */
export function responseObject(body: Json): Json {
  sequence += 1;
  const id = sequence;
  const model = String(body.model);
  const items = inputItems(body);
  const userText = itemText(items.findLast((item) => item.role === 'user') ?? {});
  const last = items.at(-1);
  const afterTool = last?.type === 'function_call_output';
  const reasoningConfig = asRecord(body.reasoning) ?? {};
  const reasons = isReasoningModel(model) && reasoningConfig.effort !== 'none';
  const reasoningTokens = reasons ? FAKE_RESPONSES_REASONING_TOKENS : 0;
  const calls = functionCalls(body, userText, afterTool);
  let text = afterTool ? `Tool result received: ${itemText(last)}` : `Echo: ${userText}`;
  let outputTokens = reasoningTokens + (calls.length > 0 ? 0 : fakeTokens(text));
  for (const call of calls) outputTokens += fakeTokens(call.arguments);
  const max = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  const cut = max !== undefined && outputTokens > max;
  if (cut) {
    text = text.slice(0, Math.max(max - reasoningTokens, 0) * 4);
    outputTokens = max;
  }
  const output: Json[] = [];
  if (reasons) {
    const summary =
      reasoningConfig.summary === undefined || reasoningConfig.summary === null
        ? []
        : [{ type: 'summary_text', text: `Thinking about: ${userText.slice(0, 50)}` }];
    const include = Array.isArray(body.include) ? body.include : [];
    output.push({
      id: `rs_fake_${id}`,
      type: 'reasoning',
      summary,
      ...(include.includes('reasoning.encrypted_content')
        ? { encrypted_content: Buffer.from(`reasoning about: ${userText.slice(0, 50)}`).toString('base64') }
        : {}),
    });
  }
  calls.forEach((call, i) => {
    output.push({ id: `fc_fake_${id}_${i}`, type: 'function_call', status: 'completed', ...call });
  });
  if (calls.length === 0) {
    output.push({
      id: `msg_fake_${id}`,
      type: 'message',
      status: cut ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
  }
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';
  const inputTokens = fakeTokens(instructions + items.map(itemText).join(''));
  return {
    id: `resp_fake_${id}`,
    object: 'response',
    created_at: FAKE_CREATED,
    status: cut ? 'incomplete' : 'completed',
    background: false,
    completed_at: cut ? null : FAKE_CREATED + 1,
    error: null,
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: max ?? null,
    max_tool_calls: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: null,
    reasoning: {
      effort: reasons ? (reasoningConfig.effort ?? 'medium') : null,
      summary: reasoningConfig.summary ?? null,
    },
    safety_identifier: null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: isReasoningModel(model) ? 1 : (body.temperature ?? 1),
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: isReasoningModel(model) ? 1 : (body.top_p ?? 1),
    truncation: 'disabled',
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: cachedTokens(inputTokens) },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: inputTokens + outputTokens,
    },
    user: null,
    metadata: body.metadata ?? {},
  };
}

/** One server-sent event of a Responses stream, before its `sequence_number` is set. */
interface ResponsesEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The documented events streaming `response`, in order, each with its `sequence_number`. */
export function responseEvents(response: Json): Json[] {
  const pending = { ...response, status: 'in_progress', completed_at: null, incomplete_details: null };
  const events: ResponsesEvent[] = [
    { type: 'response.created', response: { ...pending, output: [], usage: null } },
    { type: 'response.in_progress', response: { ...pending, output: [], usage: null } },
  ];
  const output = Array.isArray(response.output) ? (response.output as Json[]) : [];
  for (const [index, item] of output.entries()) events.push(...itemEvents(item, index));
  const final = response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  events.push({ type: final, response });
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

function itemEvents(item: Json, output_index: number): ResponsesEvent[] {
  const item_id = item.id;
  const at = { item_id, output_index };
  const events: ResponsesEvent[] = [];
  if (item.type === 'reasoning') {
    events.push({ type: 'response.output_item.added', output_index, item: { ...item, summary: [] } });
    (item.summary as Json[]).forEach((part, summary_index) => {
      const text = String(part.text);
      events.push({
        type: 'response.reasoning_summary_part.added',
        ...at,
        summary_index,
        part: { type: 'summary_text', text: '' },
      });
      for (const delta of pieces(text))
        events.push({ type: 'response.reasoning_summary_text.delta', ...at, summary_index, delta });
      events.push({ type: 'response.reasoning_summary_text.done', ...at, summary_index, text });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, summary_index, part });
    });
  } else if (item.type === 'function_call') {
    events.push({
      type: 'response.output_item.added',
      output_index,
      item: { ...item, status: 'in_progress', arguments: '' },
    });
    const args = String(item.arguments);
    const half = Math.ceil(args.length / 2);
    for (const delta of [args.slice(0, half), args.slice(half)])
      events.push({ type: 'response.function_call_arguments.delta', ...at, delta });
    events.push({ type: 'response.function_call_arguments.done', ...at, arguments: args });
  } else {
    events.push({
      type: 'response.output_item.added',
      output_index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    (item.content as Json[]).forEach((part, content_index) => {
      const text = String(part.text);
      const where = { ...at, content_index };
      events.push({
        type: 'response.content_part.added',
        ...where,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      for (const delta of pieces(text))
        events.push({ type: 'response.output_text.delta', ...where, delta, logprobs: [] });
      events.push({ type: 'response.output_text.done', ...where, text, logprobs: [] });
      events.push({ type: 'response.content_part.done', ...where, part });
    });
  }
  events.push({ type: 'response.output_item.done', output_index, item });
  return events;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function frame(event: Json): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

async function streamEvents(res: ServerResponse, events: Json[], behaviour: FakeBehaviour): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const cut = behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream';
  const [sent, tail] = splitBeforeEnd(cut ? events.slice(0, behaviour.afterEvents) : events, behaviour);
  // Wait until the events are handed to the socket, so a cut after them cannot swallow them.
  await new Promise<void>((resolve) => res.write(sent.map(frame).join(''), () => resolve()));
  if (tail.length > 0) {
    await pauseBeforeEnd(behaviour);
    if (res.destroyed) return;
    res.write(tail.map(frame).join(''));
  }
  if (behaviour.kind === 'stall-mid-stream') return; // never ends; close() cuts it
  if (behaviour.kind === 'fail-mid-stream') {
    if (behaviour.mode === 'disconnect') res.socket?.destroy();
    else res.end(frame({ type: 'error', ...STREAM_SERVER_ERROR, sequence_number: sent.length }));
    return;
  }
  res.end();
}

/** Answers a Responses request (already authenticated) as OpenAI would, honouring `behaviour`. */
export async function answerResponses(
  res: ServerResponse,
  body: Json | undefined,
  behaviour: FakeBehaviour,
): Promise<void> {
  const invalid = responsesRequestError(body);
  if (invalid !== undefined || body === undefined) return sendJson(res, 400, invalid);
  const response = responseObject(body);
  if (body.stream === true) return streamEvents(res, responseEvents(response), behaviour);
  if (behaviour.kind === 'fail-mid-stream' && behaviour.mode === 'disconnect')
    return void res.socket?.destroy();
  if (behaviour.kind === 'fail-mid-stream') {
    return sendJson(res, 500, { error: { ...STREAM_SERVER_ERROR, type: 'server_error', code: null } });
  }
  sendJson(res, 200, response);
}
