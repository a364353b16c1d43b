/**
 * Anthropic's streamed Message → chat chunks. Documented event sequence followed
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming; SDK `RawMessageStreamEvent`):
 * `message_start` (usage with input tokens), then per content block `content_block_start`,
 * `content_block_delta`s (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`,
 * `citations_delta`) and `content_block_stop`; `message_delta` (`stop_reason`, cumulative
 * `usage`); `message_stop`; `ping`s anywhere; `error` events mid-stream; unknown event types
 * are to be ignored.
 *
 * Tool calls: each `tool_use` block gets the next tool-call index (0, 1, …) in block order, kept
 * for all its argument deltas. The first chunk carries `role: 'assistant'`; the `finish_reason`
 * chunk carries the collected `citations`.
 */
import {
  type ChatChunk,
  type ChatStreamTranslator,
  type ChunkChoice,
  type FinishReason,
  type NormalizedUsage,
  type SseEvent,
  UpstreamProtocolError,
  UpstreamStreamError,
} from '../chat-types.ts';
import { CitationList, finishReasonOf, mergeUsage, normalizeUsage } from './chat-mapping.ts';
import { JSON_OUTPUT_TOOL } from './chat-tools.ts';
import { safeMessage, statusForErrorType } from './error-message.ts';
import { parseDocumented } from './protocol-error.ts';
import {
  type AnthropicStreamEvent,
  type AnthropicUsage,
  citationsDeltaSchema,
  inputJsonDeltaSchema,
  streamEventSchema,
  textDeltaSchema,
  thinkingDeltaSchema,
  toolUseBlockSchema,
  webSearchToolResultSchema,
} from './response-schemas.ts';

type Delta = ChunkChoice['delta'];

type BlockState =
  | { kind: 'content' }
  | { kind: 'tool'; toolIndex: number; sentArguments: boolean }
  | { kind: 'json-output'; sentAny: boolean }
  | { kind: 'ignored' };

const KNOWN_EVENTS = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

/** One stream's translation state; create one per upstream response. */
export class AnthropicStreamTranslator implements ChatStreamTranslator {
  readonly #blocks = new Map<number, BlockState>();
  readonly #citations = new CitationList();
  #toolCount = 0;
  #roleSent = false;
  #usage: AnthropicUsage | undefined;

  onEvent(event: SseEvent): ChatChunk[] {
    const parsed = this.#parse(event);
    if (parsed === undefined) return [];
    switch (parsed.type) {
      case 'message_start':
        this.#usage = parsed.message.usage;
        return [this.#chunk({ content: '' })];
      case 'content_block_start':
        return this.#onBlockStart(parsed.index, parsed.content_block);
      case 'content_block_delta':
        return this.#onBlockDelta(parsed.index, parsed.delta);
      case 'content_block_stop':
        return this.#onBlockStop(parsed.index);
      case 'message_delta':
        return this.#onMessageDelta(parsed);
      case 'error':
        throw new UpstreamStreamError(
          statusForErrorType(parsed.error.type),
          safeMessage(parsed.error.message) ?? `Anthropic stream error (${parsed.error.type}).`,
        );
      default:
        return [];
    }
  }

  finish(): { usage: NormalizedUsage | undefined } {
    return { usage: this.#usage === undefined ? undefined : normalizeUsage(this.#usage) };
  }

  #parse(event: SseEvent): AnthropicStreamEvent | undefined {
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      throw new UpstreamProtocolError(`Anthropic stream event \`${event.event ?? 'message'}\` is not JSON.`);
    }
    const type = typeof json === 'object' && json !== null && 'type' in json ? json.type : undefined;
    if (typeof type !== 'string' || !KNOWN_EVENTS.has(type)) return undefined;
    return parseDocumented(streamEventSchema, json, `stream event \`${type}\``);
  }

  #onBlockStart(index: number, block: { type: string }): ChatChunk[] {
    switch (block.type) {
      case 'text':
      case 'thinking':
        this.#blocks.set(index, { kind: 'content' });
        return this.#initialText(block);
      case 'tool_use':
        return this.#onToolUseStart(index, block);
      case 'web_search_tool_result': {
        const result = parseDocumented(webSearchToolResultSchema, block, 'web_search_tool_result block');
        if (Array.isArray(result.content))
          for (const found of result.content) this.#citations.add(found.url, found.title);
        this.#blocks.set(index, { kind: 'ignored' });
        return [];
      }
      default:
        // server_tool_use input (the search query) and other server blocks are not the client's.
        this.#blocks.set(index, { kind: 'ignored' });
        return [];
    }
  }

  // Blocks normally start empty and fill through deltas; text present at the start is passed on.
  #initialText(block: { type: string; text?: unknown; thinking?: unknown }): ChatChunk[] {
    if (typeof block.text === 'string' && block.text !== '') return [this.#chunk({ content: block.text })];
    if (typeof block.thinking === 'string' && block.thinking !== '') {
      return [this.#chunk({ reasoning_content: block.thinking })];
    }
    return [];
  }

  #onToolUseStart(index: number, block: { type: string }): ChatChunk[] {
    const use = parseDocumented(toolUseBlockSchema, block, 'tool_use block');
    if (use.name === JSON_OUTPUT_TOOL) {
      this.#blocks.set(index, { kind: 'json-output', sentAny: false });
      return [];
    }
    const toolIndex = this.#toolCount;
    this.#toolCount += 1;
    this.#blocks.set(index, { kind: 'tool', toolIndex, sentArguments: false });
    return [
      this.#chunk({
        tool_calls: [
          { index: toolIndex, id: use.id, type: 'function', function: { name: use.name, arguments: '' } },
        ],
      }),
    ];
  }

  #onBlockDelta(index: number, delta: { type: string }): ChatChunk[] {
    const state = this.#blocks.get(index);
    if (state === undefined)
      throw new UpstreamProtocolError(`Anthropic stream: delta for content block ${index} before its start.`);
    switch (delta.type) {
      case 'text_delta':
        return this.#text(parseDocumented(textDeltaSchema, delta, 'text_delta').text);
      case 'thinking_delta': {
        const thinking = parseDocumented(thinkingDeltaSchema, delta, 'thinking_delta').thinking;
        return thinking === '' ? [] : [this.#chunk({ reasoning_content: thinking })];
      }
      case 'input_json_delta':
        return this.#arguments(
          state,
          parseDocumented(inputJsonDeltaSchema, delta, 'input_json_delta').partial_json,
        );
      case 'citations_delta': {
        const { citation } = parseDocumented(citationsDeltaSchema, delta, 'citations_delta');
        this.#citations.add(citation.url, citation.title);
        return [];
      }
      default:
        // signature_delta is only needed to send thinking back to Anthropic, which the convention cannot do.
        return [];
    }
  }

  #text(text: string): ChatChunk[] {
    return text === '' ? [] : [this.#chunk({ content: text })];
  }

  #arguments(state: BlockState, partial: string): ChatChunk[] {
    if (partial === '') return [];
    if (state.kind === 'json-output') {
      state.sentAny = true;
      return [this.#chunk({ content: partial })];
    }
    if (state.kind !== 'tool') return [];
    state.sentArguments = true;
    return [this.#chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: partial } }] })];
  }

  // A tool called without input streams no JSON at all; clients parse `arguments`, so it must be `{}`.
  #onBlockStop(index: number): ChatChunk[] {
    const state = this.#blocks.get(index);
    if (state?.kind === 'tool' && !state.sentArguments) {
      return [this.#chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: '{}' } }] })];
    }
    if (state?.kind === 'json-output' && !state.sentAny) return [this.#chunk({ content: '{}' })];
    return [];
  }

  #onMessageDelta(event: Extract<AnthropicStreamEvent, { type: 'message_delta' }>): ChatChunk[] {
    const base = this.#usage ?? { input_tokens: 0, output_tokens: 0 };
    this.#usage = mergeUsage(base, event.usage);
    const stopReason = event.delta.stop_reason;
    if (stopReason === null || stopReason === undefined) return [];
    const finish = finishReasonOf(stopReason);
    // Only the JSON-output tool was "used": the answer is finished content, not a tool call.
    const reason: FinishReason = finish === 'tool_calls' && this.#toolCount === 0 ? 'stop' : finish;
    const chunk = this.#chunk({}, reason);
    if (this.#citations.size > 0) chunk.citations = this.#citations.list();
    return [chunk];
  }

  #chunk(delta: Delta, finishReason: FinishReason | null = null): ChatChunk {
    const withRole: Delta = this.#roleSent ? delta : { role: 'assistant', ...delta };
    this.#roleSent = true;
    return { choices: [{ index: 0, delta: withRole, finish_reason: finishReason }] };
  }
}
