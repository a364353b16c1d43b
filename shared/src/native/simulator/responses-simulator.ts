/**
 * OpenAI's Responses API as the native simulator answers it (`POST /v1/responses`, whole or
 * streamed with the Responses event sequence and its `sequence_number`s), by the demo rules.
 */
import type { UpstreamResponse } from '../../upstream/upstream-client.ts';
import { isObject } from '../native-usage.ts';
import { demoReply, textsOf } from './demo-reply.ts';
import { openaiError } from './openai-simulator.ts';
import { simulatedJson, simulatedResponse } from './simulated-response.ts';

/** The simulator's answer to a Responses request with the parsed `body`. */
export function simulateResponses(body: Record<string, unknown>): UpstreamResponse {
  const input = body.input;
  if (input === undefined || input === null) {
    return openaiError("Missing required parameter: 'input'.", 'input');
  }
  const lastUser = Array.isArray(input)
    ? [...input].reverse().find((item) => isObject(item) && (item.role ?? 'user') === 'user')
    : input;
  const inputText = [...textsOf(body.instructions, 'instructions'), ...textsOf(input, 'input')].join('');
  const reply = demoReply(textsOf(lastUser, 'input').join(' '), inputText, body.max_output_tokens);
  const stamp = Date.now().toString(36);
  const created = Math.floor(Date.now() / 1000);
  const itemId = `msg_demo_${stamp}`;
  const part = (text: string) => ({ type: 'output_text', text, annotations: [] });
  const item = (status: string, content: unknown[]) => ({
    id: itemId,
    type: 'message',
    status,
    role: 'assistant',
    content,
  });
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: `resp_demo_${stamp}`,
    object: 'response',
    created_at: created,
    status,
    model: body.model,
    output,
    incomplete_details: reply.truncated && status !== 'in_progress' ? { reason: 'max_output_tokens' } : null,
    usage,
  });
  const finalStatus = reply.truncated ? 'incomplete' : 'completed';
  const usage = {
    input_tokens: reply.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: reply.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: reply.inputTokens + reply.outputTokens,
  };
  const done = response(finalStatus, [item('completed', [part(reply.text)])], usage);
  if (body.stream !== true) return simulatedJson(done);
  const started = response('in_progress', [], null);
  const where = { item_id: itemId, output_index: 0, content_index: 0 };
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: started },
    { type: 'response.in_progress', response: started },
    { type: 'response.output_item.added', output_index: 0, item: item('in_progress', []) },
    { type: 'response.content_part.added', ...where, part: part('') },
    ...reply.pieces.map((delta) => ({ type: 'response.output_text.delta', ...where, delta })),
    { type: 'response.output_text.done', ...where, text: reply.text },
    { type: 'response.content_part.done', ...where, part: part(reply.text) },
    { type: 'response.output_item.done', output_index: 0, item: item('completed', [part(reply.text)]) },
    { type: `response.${finalStatus}`, response: done },
  ];
  return simulatedResponse(
    'text/event-stream',
    events.map(
      (event, sequence) =>
        `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`,
    ),
  );
}
