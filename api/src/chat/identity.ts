import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChatMessage } from '../../../shared/src/providers/chat-types.ts';

/** Header values that turn identity injection off for one request (spec). */
const OFF_VALUES = new Set(['off', 'false', '0']);

/** Whether to prepend the identity prompt: the key's setting, unless the request header says off. */
export function wantsIdentity(keySetting: boolean, header: string | string[] | undefined): boolean {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  return keySetting && !(value !== undefined && OFF_VALUES.has(value));
}

/** The short system prompt that says which model answers. */
export function identityMessage(model: Pick<CatalogueModel, 'id' | 'name'>): ChatMessage {
  return {
    role: 'system',
    content: `You are ${model.name} (model id ${model.id}), answering through a unified model gateway. If asked which model you are, say so.`,
  };
}
