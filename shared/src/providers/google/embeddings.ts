/**
 * Embeddings through Gemini `batchEmbedContents`, per
 * https://ai.google.dev/api/embeddings#method:-models.batchembedcontents:
 * body `{requests: [{model: "models/<id>", content: {parts: [{text}]}, outputDimensionality}]}`,
 * answer `{embeddings: [{values: [...]}]}` in input order.
 *
 * The Gemini API reports no token counts for embeddings, and billing needs one: when the answer
 * has no `usageMetadata.promptTokenCount`, input tokens are estimated as the sum over inputs of
 * ceil(characters / 4) (Unicode code points; Google's rule of thumb of ~4 characters per token,
 * https://ai.google.dev/gemini-api/docs/tokens). `encoding_format` is the gateway's business: it
 * gets float vectors and encodes base64 itself.
 */
import { z } from 'zod';
import type {
  EmbeddingAdapter,
  EmbeddingRequest,
  EmbeddingResult,
  UpstreamRequest,
  UpstreamTarget,
} from '../chat-types.ts';
import { UpstreamProtocolError } from '../chat-types.ts';
import { bareModelId, embeddingsUrl, geminiHeaders } from './api.ts';
import { firstIssue } from './wire-response.ts';

const responseSchema = z.object({
  embeddings: z.array(z.object({ values: z.array(z.number()) })),
  usageMetadata: z.object({ promptTokenCount: z.number().int().nonnegative().optional() }).optional(),
});

function inputsOf(request: EmbeddingRequest): string[] {
  return typeof request.input === 'string' ? [request.input] : request.input;
}

/** The documented estimate: ceil(code points / 4) per input, summed. */
export function estimateEmbeddingTokens(inputs: readonly string[]): number {
  return inputs.reduce((sum, text) => sum + Math.ceil([...text].length / 4), 0);
}

/** The batchEmbedContents body for an embeddings request. */
export function toBatchEmbedBody(request: EmbeddingRequest, nativeModel: string): Record<string, unknown> {
  const model = `models/${bareModelId(nativeModel)}`;
  return {
    requests: inputsOf(request).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(request.dimensions === undefined ? {} : { outputDimensionality: request.dimensions }),
    })),
  };
}

/**
 * The vectors of a batchEmbedContents answer. `request` (an optional second argument beyond the
 * EmbeddingAdapter contract) lets the estimate count the inputs; without it and without upstream
 * counts, usage is 0.
 */
export function fromBatchEmbedResponse(json: unknown, request?: EmbeddingRequest): EmbeddingResult {
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success)
    throw new UpstreamProtocolError(`Gemini BatchEmbedContentsResponse: ${firstIssue(parsed.error)}`);
  const reported = parsed.data.usageMetadata?.promptTokenCount;
  const inputTokens = reported ?? (request ? estimateEmbeddingTokens(inputsOf(request)) : 0);
  return { vectors: parsed.data.embeddings.map((embedding) => embedding.values), usage: { inputTokens } };
}

/** Gemini embeddings as the gateway's EmbeddingAdapter. */
export const googleEmbeddings: EmbeddingAdapter & {
  response(json: unknown, request?: EmbeddingRequest): EmbeddingResult;
} = {
  request(request: EmbeddingRequest, target: UpstreamTarget): UpstreamRequest {
    return {
      url: embeddingsUrl(target),
      headers: geminiHeaders(target.apiKey),
      body: JSON.stringify(toBatchEmbedBody(request, target.nativeModel)),
    };
  },
  response: fromBatchEmbedResponse,
};
