import { jsonCharacterCount } from '../../../shared/src/billing/hold-estimate.ts';
import type { ChatStream } from '../../../shared/src/providers/chat-route.ts';
import type { ChatChunk, ChatRequest, NormalizedUsage } from '../../../shared/src/providers/chat-types.ts';
import { closeIterator } from '../streaming/close-iterator.ts';
import type { StreamCallSignal } from '../streaming/stream-call-signal.ts';

/**
 * What a chat stream whose client left is charged (docs/chat.md, "A client that leaves"). Before
 * any output the call was aborted at once: the usage the upstream reported until then, if any.
 * After output the relay reads the upstream on (`drainRest`, bounded by `STREAM_DRAIN_MS`):
 * - the upstream ends in time: the usage it reported, as for a stream read to its end;
 * - the bound (or the api's stop) cuts it first: `cutStreamUsage`, from what was read;
 * - the upstream fails meanwhile: nothing, as for any stream that ends in a failure.
 */

/** One batch of upstream events at a time, whatever kind of iterable the route gave. */
export function batchIterator<E>(
  batches: AsyncIterable<readonly E[]> | Iterable<readonly E[]>,
): AsyncIterator<readonly E[]> {
  if (Symbol.asyncIterator in batches) return batches[Symbol.asyncIterator]();
  const sync = batches[Symbol.iterator]();
  return {
    next: async () => sync.next(),
    return: async () => sync.return?.() ?? { done: true, value: undefined },
  };
}

/** How reading a stream on after its client left ended. */
export type DrainEnd = 'completed' | 'cut' | 'failed';

/**
 * Reads the rest of a stream nobody receives any more, through its translator (for the usage and
 * the characters it produced), until it ends, fails, or `call` cuts it. `counted` adds the
 * characters of each chunk read. Never throws.
 */
export async function drainRest<E>(
  batches: AsyncIterator<readonly E[]>,
  stream: ChatStream<E>,
  call: StreamCallSignal,
  counted: (chunk: ChatChunk) => void,
): Promise<DrainEnd> {
  try {
    for (;;) {
      const next = await batches.next();
      // A call cut before the relay handed it over ends at once: cut, not complete.
      if (next.done === true) return call.cut === undefined ? 'completed' : 'cut';
      for (const event of next.value) for (const chunk of stream.translator.onEvent(event)) counted(chunk);
    }
  } catch {
    return call.cut === undefined ? 'failed' : 'cut';
  } finally {
    await closeIterator(batches);
  }
}

/**
 * The usage of a stream cut after output: the input the upstream reported, else estimated from the
 * request; the larger of the output it reported and one token per 4 characters it produced.
 */
export function cutStreamUsage(
  request: ChatRequest,
  reported: NormalizedUsage | undefined,
  producedCharacters: number,
): NormalizedUsage {
  const estimated = estimatedUsage(request, producedCharacters);
  return {
    inputTokens:
      reported !== undefined && reported.inputTokens > 0 ? reported.inputTokens : estimated.inputTokens,
    cachedInputTokens: reported?.cachedInputTokens ?? 0,
    outputTokens: Math.max(reported?.outputTokens ?? 0, estimated.outputTokens),
    reasoningTokens: reported?.reasoningTokens ?? 0,
  };
}

/**
 * Usage for a stream whose upstream reported none (every adapter asks for it, so this is a
 * safety net): one token per 4 characters of the request's messages and of what was produced.
 */
export function estimatedUsage(request: ChatRequest, producedCharacters: number): NormalizedUsage {
  return {
    inputTokens: Math.ceil(jsonCharacterCount(request.messages) / 4),
    cachedInputTokens: 0,
    outputTokens: Math.ceil(producedCharacters / 4),
    reasoningTokens: 0,
  };
}

/** The characters of text a chunk carries: content, reasoning and tool-call arguments. */
export function chunkCharacters(chunk: ChatChunk): number {
  let characters = 0;
  for (const { delta } of chunk.choices) {
    characters += (delta.content?.length ?? 0) + (delta.reasoning_content?.length ?? 0);
    for (const call of delta.tool_calls ?? []) characters += call.function?.arguments?.length ?? 0;
  }
  return characters;
}
