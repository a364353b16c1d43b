import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { ChatRequest } from '../../../shared/src/providers/chat-types.ts';
import { CHAT_REQUEST_FIELDS } from '../schemas/chat-request.schema.ts';
import { identityMessage } from './identity.ts';

/** The validated body as Fastify hands it over (the schema guarantees the listed fields' shapes). */
export type ChatRequestBody = Omit<ChatRequest, 'model'> & { model?: string } & Record<string, unknown>;

/**
 * The request forwarded to a route: only the spec's fields (others the convention allows are
 * dropped), the catalogue id as model, the identity prompt first when wanted. A `web_search`
 * request for a model without that capability is a clear 400, not a silent no-op.
 */
export function toChatRequest(
  body: ChatRequestBody,
  model: CatalogueModel,
  withIdentity: boolean,
): ChatRequest {
  if (body.web_search === true && !model.capabilities.includes('web_search')) {
    throw errors.invalidRequest(`The model \`${model.id}\` does not support web_search.`);
  }
  const request: Record<string, unknown> = {};
  for (const field of CHAT_REQUEST_FIELDS) {
    if (body[field] !== undefined) request[field] = body[field];
  }
  const messages = withIdentity ? [identityMessage(model), ...body.messages] : body.messages;
  return { ...(request as unknown as ChatRequest), model: model.id, messages };
}
