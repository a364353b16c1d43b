/**
 * Anthropic's Messages API as the native simulator answers it (`POST /v1/messages`, whole or
 * streamed with Anthropic's event sequence, and `/v1/messages/count_tokens`), by the demo rules.
 */
import { demoTokens } from '../../providers/demo/demo-tokens.ts';
import type { UpstreamResponse } from '../../upstream/upstream-client.ts';
import { isObject } from '../native-usage.ts';
import { demoReply, textsOf } from './demo-reply.ts';
import { simulatedJson, simulatedResponse } from './simulated-response.ts';

/** The simulator's answer to an Anthropic request on `path` with the parsed `body`. */
export function simulateAnthropic(path: string, body: Record<string, unknown>): UpstreamResponse {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return anthropicError('messages: at least one message is required');
  }
  const inputText = [...textsOf(body.system, 'system'), ...textsOf(messages)].join('');
  if (path.endsWith('/count_tokens')) return simulatedJson({ input_tokens: demoTokens(inputText) });
  const lastUser = [...messages].reverse().find((m) => isObject(m) && m.role === 'user');
  const reply = demoReply(textsOf(lastUser).join(' '), inputText, body.max_tokens);
  const model = String(body.model);
  const id = `msg_demo_${Date.now().toString(36)}`;
  const stopReason = reply.truncated ? 'max_tokens' : 'end_turn';
  const usage = {
    input_tokens: reply.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: reply.outputTokens,
  };
  const message = { id, type: 'message', role: 'assistant', model };
  if (body.stream !== true) {
    return simulatedJson({
      ...message,
      content: [{ type: 'text', text: reply.text }],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
  }
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
    ['ping', {}],
    ...reply.pieces.map((text): [string, unknown] => [
      'content_block_delta',
      { index: 0, delta: { type: 'text_delta', text } },
    ]),
    ['content_block_stop', { index: 0 }],
    [
      'message_delta',
      {
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: reply.outputTokens },
      },
    ],
    ['message_stop', {}],
  ];
  return simulatedResponse(
    'text/event-stream',
    events.map(
      ([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`,
    ),
  );
}

function anthropicError(message: string): UpstreamResponse {
  return simulatedJson({ type: 'error', error: { type: 'invalid_request_error', message } }, 400);
}
