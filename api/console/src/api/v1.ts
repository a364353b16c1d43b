/**
 * The public `/v1` API as the playground tries it: through the console's own route
 * (`/console/api/playground/v1/…`, docs/console.md), which makes each request with the session's
 * playground key on the server. The page never holds a key; the session cookie and the CSRF token
 * go with every call, and the answers are those of `/v1`.
 */
import { createParser } from 'eventsource-parser';
import { ApiError, consoleFetch } from './client.ts';
import type { Video } from './types.ts';

function v1(
  path: string,
  init: { body?: unknown; accept?: string; signal?: AbortSignal } = {},
): Promise<Response> {
  return consoleFetch(init.body === undefined ? 'GET' : 'POST', `/playground/v1${path}`, {
    body: init.body,
    signal: init.signal,
    headers: init.accept === undefined ? {} : { accept: init.accept },
  });
}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface CostRecord {
  readonly model?: string;
  readonly cost: number;
  readonly currency?: string;
}

export interface StreamHandlers {
  readonly onDelta: (text: string) => void;
  readonly onReasoning?: (text: string) => void;
}

export interface StreamResult {
  readonly service?: CostRecord;
  readonly usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  readonly finishReason?: string | null;
}

/**
 * Streams a chat completion (`stream: true`, `stream_options.include_usage`): text arrives through
 * `onDelta`; the final usage chunk's `service` is the cost. A mid-stream error event throws.
 */
export async function streamChat(
  body: { model: string; messages: readonly ChatMessage[] },
  handlers: StreamHandlers,
  signal: AbortSignal,
): Promise<StreamResult> {
  const response = await v1('/chat/completions', {
    body: { ...body, stream: true, stream_options: { include_usage: true } },
    accept: 'text/event-stream',
    signal,
  });
  let result: { -readonly [K in keyof StreamResult]: StreamResult[K] } = {};
  let failure: ApiError | undefined;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]' || failure) return;
      const chunk = JSON.parse(event.data) as {
        error?: { message?: string; type?: string; code?: string | number };
        choices?: {
          delta?: { content?: string; reasoning_content?: string };
          finish_reason?: string | null;
        }[];
        usage?: StreamResult['usage'];
        service?: CostRecord;
      };
      if (chunk.error) {
        failure = new ApiError(200, String(chunk.error.code ?? 'upstream_error'), chunk.error.message ?? '', {
          type: chunk.error.type,
        });
        if (chunk.error.type === 'upstream_error')
          failure = new ApiError(502, 'upstream_error', failure.message);
        return;
      }
      for (const choice of chunk.choices ?? []) {
        if (choice.delta?.content) handlers.onDelta(choice.delta.content);
        if (choice.delta?.reasoning_content) handlers.onReasoning?.(choice.delta.reasoning_content);
        if (choice.finish_reason) result = { ...result, finishReason: choice.finish_reason };
      }
      if (chunk.usage) result = { ...result, usage: chunk.usage };
      if (chunk.service) result = { ...result, service: chunk.service };
    },
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new ApiError(0, 'network_error', 'no body');
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  if (failure) throw failure;
  return result;
}

export interface ImageResult {
  readonly data: readonly { b64_json?: string; revised_prompt?: string }[];
  readonly service?: CostRecord;
}

export async function generateImage(
  body: { model: string; prompt: string; size?: string },
  signal: AbortSignal,
): Promise<ImageResult> {
  return (await v1('/images/generations', { body: { ...body, n: 1 }, signal })).json();
}

export async function synthesizeSpeech(
  body: { model: string; input: string; voice: string },
  signal: AbortSignal,
): Promise<{ audio: Blob; cost: number | undefined }> {
  const response = await v1('/audio/speech', { body, accept: 'audio/mpeg', signal });
  const cost = response.headers.get('x-service-cost');
  return { audio: await response.blob(), cost: cost === null ? undefined : Number(cost) };
}

export async function startVideo(
  body: { model: string; prompt: string; duration?: number; aspect_ratio?: string },
  signal: AbortSignal,
): Promise<Video> {
  return (await v1('/videos', { body, signal })).json();
}

export async function getVideo(id: string, signal: AbortSignal): Promise<Video> {
  return (await v1(`/videos/${encodeURIComponent(id)}`, { signal })).json();
}

export async function videoContent(id: string, signal?: AbortSignal): Promise<Blob> {
  return (await v1(`/videos/${encodeURIComponent(id)}/content`, { accept: 'video/mp4', signal })).blob();
}
