/**
 * OpenAI's Embeddings API served natively (`POST /v1/embeddings` under `/openai`), as the gateway
 * bills it. Wire format per the API reference
 * (https://platform.openai.com/docs/api-reference/embeddings/create) and the official SDK (openai-node,
 * src/resources/embeddings.ts: `CreateEmbeddingResponse.Usage`): the answer's
 * `usage.prompt_tokens` is every input token, billed at the input price; there is no output.
 */
import { BYTES_PER_TOKEN, utf8Length } from '../../billing/hold-estimate.ts';
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { type JsonModelField, type MappedRequest, mapJsonModel } from '../map-json-model.ts';
import { count, isObject, type NativeTokenUsage, tokenUsage } from '../native-usage.ts';

export const OPENAI_EMBEDDINGS_MODEL_FIELD: JsonModelField = {
  provider: 'openai',
  types: ['embedding'],
  key: 'model',
};

/** The catalogue model an Embeddings body names, and its body per OpenAI route. */
export function mapEmbeddingsModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, OPENAI_EMBEDDINGS_MODEL_FIELD);
}

/** The gateway's usage of an Embeddings answer; undefined when it has no `usage`. */
export function embeddingsUsage(answer: unknown): NativeTokenUsage | undefined {
  if (!isObject(answer) || !isObject(answer.usage)) return undefined;
  return tokenUsage({ inputTokens: count(answer.usage.prompt_tokens) });
}

/**
 * An upper bound of the tokens of each input of an Embeddings body, for its hold: a text at
 * `BYTES_PER_TOKEN` UTF-8 bytes a token plus one, an array of token ids its length; none when
 * `input` is neither a text, texts, token ids nor arrays of them (the provider refuses such a body).
 */
export function embeddingInputTokenBounds(body: Readonly<Record<string, unknown>>): number[] {
  const input = body.input;
  if (typeof input === 'string') return [textTokenBound(input)];
  if (!Array.isArray(input)) return [];
  if (input.length > 0 && input.every((item) => typeof item === 'number')) return [input.length];
  return input.map((item) =>
    typeof item === 'string' ? textTokenBound(item) : Array.isArray(item) ? item.length : 0,
  );
}

function textTokenBound(text: string): number {
  return Math.ceil(utf8Length(text) / BYTES_PER_TOKEN) + 1;
}
