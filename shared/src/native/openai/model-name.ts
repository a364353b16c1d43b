/**
 * Model name mapping of OpenAI's Responses API (`POST /v1/responses`): the body's `model`
 * (https://platform.openai.com/docs/api-reference/responses/create; required by the gateway, which
 * must know what it bills, even where OpenAI would take it from a stored prompt).
 */
import type { Catalogue } from '../../catalogue/catalogue.ts';
import { type JsonModelField, type MappedRequest, mapJsonModel } from '../map-json-model.ts';

export const OPENAI_RESPONSES_MODEL_FIELD: JsonModelField = {
  provider: 'openai',
  types: ['chat'],
  key: 'model',
};

/** The catalogue model a Responses body names, and its body per OpenAI route. */
export function mapResponsesModel(body: Uint8Array, catalogue: Pick<Catalogue, 'list'>): MappedRequest {
  return mapJsonModel(body, catalogue, OPENAI_RESPONSES_MODEL_FIELD);
}
