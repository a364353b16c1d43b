/**
 * A fake Anthropic Message as the documented stream of server-sent events
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming): `message_start` with empty
 * content and the input usage; per block `content_block_start` (empty block; a `ping` after the
 * first), deltas (`citations_delta` then `text_delta`s, `thinking_delta`s then `signature_delta`,
 * `input_json_delta`s starting with an empty string) and `content_block_stop`; `message_delta`
 * with the stop reason and cumulative output tokens; `message_stop`.
 */
import { type Block, type FakeMessage, isRecord } from './anthropic-upstream-answer.ts';

export interface SseFrame {
  event: string;
  data: unknown;
}

/** The documented event sequence that streams `message`. */
export function messageEvents(message: FakeMessage): SseFrame[] {
  const frame = (event: string, data: Record<string, unknown>): SseFrame => ({
    event,
    data: { type: event, ...data },
  });
  const startUsage = { ...message.usage, output_tokens: 1 };
  const events = [
    frame('message_start', {
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
    }),
  ];
  message.content.forEach((block, index) => {
    events.push(frame('content_block_start', { index, content_block: emptyBlock(block) }));
    if (index === 0) events.push(frame('ping', {}));
    for (const delta of blockDeltas(block)) events.push(frame('content_block_delta', { index, delta }));
    events.push(frame('content_block_stop', { index }));
  });
  events.push(
    frame('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: { output_tokens: message.usage.output_tokens },
    }),
    frame('message_stop', {}),
  );
  return events;
}

function emptyBlock(block: Block): Block {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
    case 'server_tool_use':
      return { ...block, input: {} };
    default:
      return block;
  }
}

function blockDeltas(block: Block): Record<string, unknown>[] {
  if (block.type === 'text' && typeof block.text === 'string') {
    const citations = Array.isArray(block.citations) ? block.citations.filter(isRecord) : [];
    const cites = citations.map((citation) => ({ type: 'citations_delta', citation }));
    return [...cites, ...pieces(block.text, /\S+\s*|\s+/g).map((text) => ({ type: 'text_delta', text }))];
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const thinking = pieces(block.thinking, /\S+\s*|\s+/g).map((t) => ({
      type: 'thinking_delta',
      thinking: t,
    }));
    return [...thinking, { type: 'signature_delta', signature: String(block.signature) }];
  }
  if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    // Like Anthropic, the input arrives as partial JSON strings that only parse once joined.
    const json = JSON.stringify(block.input);
    return ['', ...pieces(json, /[\s\S]{1,12}/g)].map((partial_json) => ({
      type: 'input_json_delta',
      partial_json,
    }));
  }
  return [];
}

function pieces(text: string, pattern: RegExp): string[] {
  return text.match(pattern) ?? [];
}
