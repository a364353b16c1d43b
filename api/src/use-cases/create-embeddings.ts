import type { EmbeddingRequest } from '../../../shared/src/providers/chat-types.ts';
import { usableRoutes } from '../../../shared/src/providers/provider-registry.ts';
import { firstSuccessfulRoute } from '../../../shared/src/upstream/route-attempts.ts';
import { type ChatDeps, type ModelCallInput, settleUsage } from '../chat/chat-context.ts';
import { serviceRecord } from '../chat/chat-wire.ts';

export interface CreateEmbeddingsInput extends ModelCallInput {
  readonly request: EmbeddingRequest;
}

/**
 * `POST /v1/embeddings` over the model's routes. Upstreams are always asked for floats; `base64`
 * is encoded here as little-endian float32, which is what the OpenAI SDKs decode (they ask for
 * base64 by default).
 */
export async function createEmbeddings(deps: ChatDeps, input: CreateEmbeddingsInput) {
  const routes = usableRoutes(input.model, deps);
  const { route: served, value: result } = await firstSuccessfulRoute(
    routes,
    'embeddings',
    (route) => route.embed({ ...input.request, encoding_format: 'float' }, input.signal),
    input.admission.draft,
  );
  const usage = {
    inputTokens: result.usage.inputTokens,
    cachedInputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
  };
  const costMicros = await settleUsage(deps, input.admission, input.model, usage, served.provider);
  const base64 = input.request.encoding_format === 'base64';
  return {
    object: 'list' as const,
    model: input.model.id,
    data: result.vectors.map((vector, index) => ({
      object: 'embedding' as const,
      index,
      embedding: base64 ? float32Base64(vector) : vector,
    })),
    usage: { prompt_tokens: result.usage.inputTokens, total_tokens: result.usage.inputTokens },
    service: serviceRecord(input.model.id, costMicros),
  };
}

/** A vector as little-endian float32 bytes in base64. */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, value] of vector.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes.toString('base64');
}
