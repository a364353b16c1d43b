import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { ChatChunk, ChatResult, NormalizedUsage } from '../../../shared/src/providers/chat-types.ts';
import { usageObject } from '../../../shared/src/providers/usage-object.ts';

/** Identity of one chat answer, shared by the completion object and every chunk of a stream. */
export interface ChatIdentity {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

export function chatIdentity(requestId: string, model: string, now: Date): ChatIdentity {
  return {
    id: `chatcmpl-${requestId.replace(/^req_/, '')}`,
    created: Math.floor(now.getTime() / 1000),
    model,
  };
}

/** The spec's cost record (`service`). */
export function serviceRecord(model: string, costMicros: bigint) {
  return { model, cost: microsToIrt(costMicros), currency: 'IRT' as const };
}

/** The non-streamed ChatCompletion. */
export function completionObject(identity: ChatIdentity, result: ChatResult, costMicros: bigint) {
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: result.choices,
    usage: usageObject(result.usage),
    ...(result.citations && result.citations.length > 0 ? { citations: result.citations } : {}),
    service: serviceRecord(identity.model, costMicros),
  };
}

/** One `data:` line of a stream. */
export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * The `data:` line of each chunk of one stream: the same text as `sseData(chunkObject(identity,
 * chunk))`, with the identity's part (`id`, `object`, `created`, `model`) serialized once per
 * stream instead of once per chunk.
 */
export function chunkLineWriter(identity: ChatIdentity): (chunk: ChatChunk) => string {
  const head = `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk","created":${JSON.stringify(identity.created)},"model":${JSON.stringify(identity.model)},"choices":`;
  return (chunk) => {
    const citations = chunk.citations;
    return citations && citations.length > 0
      ? `${head}${JSON.stringify(chunk.choices)},"citations":${JSON.stringify(citations)}}\n\n`
      : `${head}${JSON.stringify(chunk.choices)}}\n\n`;
  };
}

/** A chunk as the client sees it. */
export function chunkObject(identity: ChatIdentity, chunk: ChatChunk) {
  return {
    id: identity.id,
    object: 'chat.completion.chunk' as const,
    created: identity.created,
    model: identity.model,
    choices: chunk.choices,
    ...(chunk.citations && chunk.citations.length > 0 ? { citations: chunk.citations } : {}),
  };
}

/**
 * The final usage chunk (`stream_options.include_usage`): empty choices, the usage, and — an
 * extension of the convention — the cost record `service`, as in the non-streamed answer.
 */
export function usageChunkObject(identity: ChatIdentity, usage: NormalizedUsage, costMicros: bigint) {
  return {
    ...chunkObject(identity, { choices: [] }),
    usage: usageObject(usage),
    service: serviceRecord(identity.model, costMicros),
  };
}

/** A failure after the stream started (spec, Events): `code` is the provider's HTTP status. */
export function streamErrorObject(status: number, message: string) {
  return { error: { message, type: 'upstream_error', code: status } };
}
