import type { Calibration } from '../../../shared/src/billing/hold-calibration.ts';
import {
  type ChatHoldInput,
  chatHold,
  type HoldEstimate,
  jsonByteCount,
  utf8Length,
} from '../../../shared/src/billing/hold-estimate.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChatMessage } from '../../../shared/src/providers/chat-types.ts';
import type { ChatRequestBody } from './chat-request.ts';
import { identityMessage } from './identity.ts';

/** Bytes counted for a message's framing (role, separators), about 4 tokens. */
const MESSAGE_FRAMING_BYTES = 12;

/**
 * The hold of a validated chat request (docs/money-core.md, "Hold sizing"): its text input (the
 * identity prompt when it will be sent, messages, tools, response format), its image parts, and
 * per choice its stated output bound or what the model's answers used lately, all bounded by the
 * model's limits.
 */
export function chatRequestHold(
  model: CatalogueModel,
  body: ChatRequestBody,
  withIdentity: boolean,
  calibration: Calibration,
): HoldEstimate {
  return chatHold(model, chatHoldInput(body, withIdentity ? identityMessage(model) : undefined), calibration);
}

/** What the hold of a validated chat request is computed from (no recursion over the body). */
export function chatHoldInput(body: ChatRequestBody, identity: ChatMessage | undefined): ChatHoldInput {
  let inputBytes = 0;
  let imageParts = 0;
  const messages = identity === undefined ? body.messages : [identity, ...body.messages];
  for (const message of messages) {
    inputBytes +=
      MESSAGE_FRAMING_BYTES + utf8Length(message.name ?? '') + utf8Length(message.tool_call_id ?? '');
    for (const call of message.tool_calls ?? [])
      inputBytes +=
        MESSAGE_FRAMING_BYTES + utf8Length(call.function.name) + utf8Length(call.function.arguments);
    const content = message.content;
    if (typeof content === 'string') inputBytes += utf8Length(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === 'text') inputBytes += utf8Length(part.text);
        else if (part.type === 'image_url') imageParts += 1;
        else inputBytes += jsonByteCount(part.file);
      }
    }
  }
  if (body.tools !== undefined) inputBytes += jsonByteCount(body.tools);
  if (body.response_format !== undefined) inputBytes += jsonByteCount(body.response_format);
  return {
    inputBytes,
    imageParts,
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens,
    choices: body.n ?? 1,
  };
}
