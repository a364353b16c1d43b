/**
 * Usage of the Gemini API, as the gateway bills it. Wire format per the API reference
 * (https://ai.google.dev/api/generate-content#UsageMetadata) and the official SDK (js-genai,
 * src/types.ts `GenerateContentResponseUsageMetadata`):
 *
 * - `usageMetadata`: `promptTokenCount` (the whole prompt, cached content included),
 *   `cachedContentTokenCount` (the part read from a cache), `toolUsePromptTokenCount` (tool
 *   results fed back as input), `candidatesTokenCount` (answer), `thoughtsTokenCount` (thinking,
 *   billed as output), `totalTokenCount` (the sum of prompt, tool-use prompt, candidates and
 *   thoughts), and per-modality details (`promptTokensDetails`, `candidatesTokensDetails`).
 * - `streamGenerateContent`: every chunk carries `usageMetadata` with the totals so far; the last
 *   one (whose candidate has a `finishReason`) is final. Framing: server-sent events with
 *   `?alt=sse`, else one JSON array streamed element by element.
 * - embedContent / batchEmbedContents answer no token counts: input tokens are counted from the
 *   request as the `/v1` embeddings adapter does (ceil(code points / 4) per text).
 * - countTokens is free.
 *
 * Unpriced (refused): audio input and image output tokens, which Google prices apart from text on
 * most models (https://ai.google.dev/gemini-api/docs/pricing) while the catalogue has one input and
 * one output price; Grounding with Google Search, billed per grounded prompt or search query; and
 * non-text parts sent for embedding.
 */
import { estimateEmbeddingTokens } from '../../providers/google/embeddings.ts';
import { count, isObject, type NativeTokenUsage, tokenUsage, type UnpricedPart } from '../native-usage.ts';
import { JsonArrayObserver } from '../stream/json-array-observer.ts';
import { SseObserver } from '../stream/sse-observer.ts';
import type { StreamUsage, UsageAccumulator } from '../stream/usage-accumulator.ts';

/** The tokens of one modality in a `*TokensDetails` list. */
function modalityTokens(details: unknown, modality: string): number {
  if (!Array.isArray(details)) return 0;
  return details.reduce<number>(
    (sum, entry) => sum + (isObject(entry) && entry.modality === modality ? count(entry.tokenCount) : 0),
    0,
  );
}

/** The gateway's usage from `usageMetadata`, plus whether the answer was grounded in Google Search. */
export function geminiUsage(metadata: Readonly<Record<string, unknown>>, grounded = false): NativeTokenUsage {
  const prompt = count(metadata.promptTokenCount);
  const cached = Math.min(count(metadata.cachedContentTokenCount), prompt);
  const thoughts = count(metadata.thoughtsTokenCount);
  const unpriced: UnpricedPart[] = [
    { name: 'audio_input_tokens', quantity: modalityTokens(metadata.promptTokensDetails, 'AUDIO') },
    { name: 'image_output_tokens', quantity: modalityTokens(metadata.candidatesTokensDetails, 'IMAGE') },
    { name: 'google_search_grounding', quantity: grounded ? 1 : 0 },
  ];
  return tokenUsage({
    inputTokens: prompt - cached + count(metadata.toolUsePromptTokenCount),
    cacheReadTokens: cached,
    outputTokens: count(metadata.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
    unpriced,
  });
}

/** Whether a response (or stream chunk) was grounded in Google Search results. */
function isGrounded(response: Readonly<Record<string, unknown>>): boolean {
  const candidates = Array.isArray(response.candidates) ? response.candidates : [];
  return candidates.some((candidate) => {
    const grounding =
      isObject(candidate) && isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
    const queries = grounding.webSearchQueries;
    const chunks = grounding.groundingChunks;
    return (Array.isArray(queries) && queries.length > 0) || (Array.isArray(chunks) && chunks.length > 0);
  });
}

function hasFinishReason(response: Readonly<Record<string, unknown>>): boolean {
  const candidates = Array.isArray(response.candidates) ? response.candidates : [];
  return candidates.some((candidate) => isObject(candidate) && typeof candidate.finishReason === 'string');
}

/** The usage of a generateContent answer (its JSON body); undefined when it reports none. */
export function generateContentUsage(body: unknown): NativeTokenUsage | undefined {
  if (!isObject(body) || !isObject(body.usageMetadata)) return undefined;
  return geminiUsage(body.usageMetadata, isGrounded(body));
}

/**
 * The usage of an embedContent or batchEmbedContents call: the answer's `usageMetadata.
 * promptTokenCount` where it gives one, else counted from the request's texts (and titles).
 */
export function embeddingUsage(requestBody: unknown, responseBody?: unknown): NativeTokenUsage {
  if (isObject(responseBody) && isObject(responseBody.usageMetadata)) {
    const reported = responseBody.usageMetadata.promptTokenCount;
    if (typeof reported === 'number') return tokenUsage({ inputTokens: count(reported) });
  }
  const requests =
    isObject(requestBody) && Array.isArray(requestBody.requests) ? requestBody.requests : [requestBody];
  const texts: string[] = [];
  let otherParts = 0;
  for (const request of requests) {
    if (!isObject(request)) continue;
    if (typeof request.title === 'string') texts.push(request.title);
    const parts =
      isObject(request.content) && Array.isArray(request.content.parts) ? request.content.parts : [];
    for (const part of parts) {
      if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
      else otherParts += 1;
    }
  }
  return tokenUsage({
    inputTokens: estimateEmbeddingTokens(texts),
    unpriced: [{ name: 'non_text_embedding_parts', quantity: otherParts }],
  });
}

/** Observes a streamGenerateContent body (SSE with `alt=sse`, else a JSON array) for its usage. */
export class GeminiUsageAccumulator implements UsageAccumulator {
  readonly #sse: SseObserver | undefined;
  readonly #array: JsonArrayObserver | undefined;
  #metadata: Record<string, unknown> | undefined;
  #grounded = false;
  #complete = false;

  /** `sse`: the request asked for `alt=sse` (see `isSseQuery`). */
  constructor(sse: boolean) {
    if (sse) this.#sse = new SseObserver((event) => this.#onData(event.data));
    else this.#array = new JsonArrayObserver((element) => this.#onChunk(element));
  }

  push(chunk: Uint8Array): void {
    this.#sse?.push(chunk);
    this.#array?.push(chunk);
  }

  finish(): StreamUsage {
    this.#sse?.end();
    return {
      usage: this.#metadata === undefined ? undefined : geminiUsage(this.#metadata, this.#grounded),
      complete: this.#complete && (this.#array === undefined || this.#array.closed),
      problem: this.#sse?.problem ?? this.#array?.problem,
    };
  }

  #onData(data: string): void {
    try {
      this.#onChunk(JSON.parse(data));
    } catch {
      this.#sse?.stop('a streamGenerateContent event is not JSON');
    }
  }

  #onChunk(chunk: unknown): void {
    if (!isObject(chunk)) return;
    if (isObject(chunk.usageMetadata)) this.#metadata = chunk.usageMetadata;
    if (isGrounded(chunk)) this.#grounded = true;
    if (hasFinishReason(chunk)) this.#complete = true;
  }
}
