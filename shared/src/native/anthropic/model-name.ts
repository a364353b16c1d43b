/**
 * Model name mapping of Anthropic's Messages API (`POST /v1/messages`, `/v1/messages/count_tokens`):
 * the body's required `model` (https://docs.anthropic.com/en/api/messages).
 */
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { type JsonModelField, type MappedRequest, mapJsonModel } from '../map-json-model.ts';

export const ANTHROPIC_MODEL_FIELD: JsonModelField = { provider: 'anthropic', types: ['chat'], key: 'model' };

/** The catalogue model a Messages body names, and its body per Anthropic route. */
export function mapAnthropicModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, ANTHROPIC_MODEL_FIELD);
}
