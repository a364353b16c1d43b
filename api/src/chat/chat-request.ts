import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import { refuseUntakenParams } from '../../../shared/src/native/check-params.ts';
import { outputTokens } from '../../../shared/src/native/request-ranges.ts';
import type { ChatRequest } from '../../../shared/src/providers/chat-types.ts';
import { CHAT_REQUEST_FIELDS } from '../schemas/chat-request.schema.ts';
import { identityMessage } from './identity.ts';

/** The validated body as Fastify hands it over (the schema guarantees the listed fields' shapes). */
export type ChatRequestBody = Omit<ChatRequest, 'model'> & { model?: string } & Record<string, unknown>;

/**
 * The request forwarded to a route: only the spec's fields (others the convention allows are
 * dropped), the catalogue id as model, the identity prompt first when wanted. A `web_search`
 * request for a model without that capability is a clear 400, not a silent no-op, and so are an
 * output bound above the model's limit and a parameter the model does not take (`temperature: 0`
 * on a GPT-5 reasoning model: refused naming it, as the provider would, never dropped silently).
 */
export function toChatRequest(
  body: ChatRequestBody,
  model: CatalogueModel,
  withIdentity: boolean,
): ChatRequest {
  if (body.web_search === true && !model.capabilities.includes('web_search')) {
    throw errors.invalidRequest(`The model \`${model.id}\` does not support web_search.`);
  }
  checkOutputBound(model, body);
  refuseUntakenParams(model, body);
  const request: Record<string, unknown> = {};
  for (const field of CHAT_REQUEST_FIELDS) {
    if (body[field] !== undefined) request[field] = body[field];
  }
  const messages = withIdentity ? [identityMessage(model), ...body.messages] : body.messages;
  return { ...(request as unknown as ChatRequest), model: model.id, messages };
}

/**
 * Refuses (400, naming the limit) an output bound above what the model can produce: its
 * `max_output_tokens`, else its context window. Never lowered silently: the price follows it.
 */
export function checkOutputBound(model: CatalogueModel, body: ChatRequestBody): void {
  const range = outputTokens(model);
  for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
    const value = body[field];
    if (value === undefined || value <= range.max) continue;
    throw errors.invalidRequest(`Invalid body field \`${field}\`: ${value} is above ${range.maxReason}.`);
  }
}
