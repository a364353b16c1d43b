/**
 * Gateway embeddings request <-> OpenAI-compatible `POST <baseUrl>/embeddings`.
 *
 * Shapes followed: OpenAI Create embeddings (openai-node `EmbeddingCreateParams`: `input`,
 * `dimensions`, `encoding_format` float|base64; `CreateEmbeddingResponse`: `data[].index`,
 * `data[].embedding`, `usage.prompt_tokens`); Mistral Create embeddings (`output_dimension`, float
 * output by default). The gateway always asks for floats and encodes base64 for the client itself,
 * so one code path serves both client encodings.
 */
import { type EmbeddingRequest, type EmbeddingResult, UpstreamProtocolError } from '../chat-types.ts';
import type { OpenAICompatibleProfile } from './profile.ts';
import { wireEmbeddingsSchema } from './wire-schemas.ts';

type EmbeddingsProfile = NonNullable<OpenAICompatibleProfile['embeddings']>;

/** Builds the upstream JSON body for an embeddings request. */
export function toEmbeddingRequestBody(
  request: EmbeddingRequest,
  embeddings: EmbeddingsProfile,
  nativeModel: string,
): Record<string, unknown> {
  return {
    model: nativeModel,
    input: request.input,
    ...(request.dimensions === undefined ? {} : { [embeddings.dimensionsField]: request.dimensions }),
    ...(embeddings.sendEncodingFormat ? { encoding_format: 'float' } : {}),
  };
}

/** Maps the upstream answer: one vector per input in input order, and the billed input tokens. */
export function fromEmbeddingResponse(
  json: unknown,
  request: EmbeddingRequest,
  profile: OpenAICompatibleProfile,
): EmbeddingResult {
  const parsed = wireEmbeddingsSchema.safeParse(json);
  if (!parsed.success) {
    throw new UpstreamProtocolError(`${profile.name} embeddings answer does not have the documented shape.`);
  }
  const { data, usage } = parsed.data;
  if (usage === undefined || usage === null) {
    throw new UpstreamProtocolError(`${profile.name} embeddings answer carries no usage.`);
  }
  const inputs = typeof request.input === 'string' ? 1 : request.input.length;
  if (data.length !== inputs) {
    throw new UpstreamProtocolError(
      `${profile.name} embeddings answer has ${data.length} vectors for ${inputs} inputs.`,
    );
  }
  const vectors: number[][] = new Array(data.length);
  for (const item of data) {
    if (item.index >= data.length || vectors[item.index] !== undefined) {
      throw new UpstreamProtocolError(`${profile.name} embeddings answer has inconsistent indexes.`);
    }
    vectors[item.index] =
      typeof item.embedding === 'string' ? decodeFloat32Base64(item.embedding) : item.embedding;
  }
  return { vectors, usage: { inputTokens: usage.prompt_tokens } };
}

/** OpenAI's base64 encoding: the vector's little-endian float32 bytes. */
function decodeFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) throw new UpstreamProtocolError('Base64 embedding is not a float32 array.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Array<number>(bytes.length / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
