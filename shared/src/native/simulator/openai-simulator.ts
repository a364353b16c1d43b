/**
 * OpenAI's Chat Completions and Embeddings as the native simulator answers them (the paths under
 * OpenAI's base URL, which ends in `/v1`): the demo chat and embedding simulators' answers in
 * OpenAI's wire format: a `chat.completion`, or `chat.completion.chunk` events with the usage
 * chunk and `[DONE]`; an embeddings list, in floats or base64 as `encoding_format` asks.
 */

import type { ChatRequest, EmbeddingRequest } from '../../providers/chat-types.ts';
import { UnsupportedFeatureError } from '../../providers/chat-types.ts';
import { demoChat } from '../../providers/demo/demo-chat.ts';
import { demoEmbeddings } from '../../providers/demo/demo-embeddings.ts';
import { usageObject } from '../../providers/usage-object.ts';
import type { UpstreamResponse } from '../../upstream/upstream-client.ts';
import { simulatedJson, simulatedResponse } from './simulated-response.ts';

/** The simulator's answer to `POST /chat/completions` with the parsed `body`. */
export function simulateChatCompletions(body: Record<string, unknown>): UpstreamResponse {
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return openaiError(
      "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      'messages',
    );
  }
  const request = body as unknown as ChatRequest;
  const id = `chatcmpl-demo${Date.now().toString(36)}`;
  const head = { id, created: Math.floor(Date.now() / 1000), model: String(body.model) };
  try {
    if (body.stream !== true) {
      const result = demoChat.complete(request);
      return simulatedJson({
        ...head,
        object: 'chat.completion',
        choices: result.choices,
        usage: usageObject(result.usage),
      });
    }
    const { chunks, usage } = demoChat.stream(request);
    const events = [
      ...chunks.map((chunk) => ({ ...head, object: 'chat.completion.chunk', choices: chunk.choices })),
      { ...head, object: 'chat.completion.chunk', choices: [], usage: usageObject(usage) },
    ];
    return simulatedResponse('text/event-stream', [
      ...events.map((event) => `data: ${JSON.stringify(event)}\n\n`),
      'data: [DONE]\n\n',
    ]);
  } catch (error) {
    if (error instanceof UnsupportedFeatureError) return openaiError(error.message, null);
    throw error;
  }
}

/** The simulator's answer to `POST /embeddings` with the parsed `body`. */
export function simulateOpenAIEmbeddings(body: Record<string, unknown>): UpstreamResponse {
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    return openaiError("'input' must be a string or a non-empty array of strings.", 'input');
  }
  try {
    const result = demoEmbeddings.embed(body as unknown as EmbeddingRequest);
    const base64 = body.encoding_format === 'base64';
    return simulatedJson({
      object: 'list',
      data: result.vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      })),
      model: body.model,
      usage: { prompt_tokens: result.usage.inputTokens, total_tokens: result.usage.inputTokens },
    });
  } catch (error) {
    if (error instanceof UnsupportedFeatureError) return openaiError(error.message, 'dimensions');
    throw error;
  }
}

/** An OpenAI error body (its 400 `invalid_request_error`). */
export function openaiError(message: string, param: string | null): UpstreamResponse {
  return simulatedJson({ error: { message, type: 'invalid_request_error', param, code: null } }, 400);
}
