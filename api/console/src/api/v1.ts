/**
 * The public `/v1` API, called from the playground with a key the holder pasted. The key lives in
 * this module's memory only (never in storage): it is gone when the tab closes or reloads.
 */
import { createParser } from 'eventsource-parser';
import { ApiError, errorFrom } from './client.ts';
import type { Video } from './types.ts';

let pastedKey = '';
const listeners = new Set<(key: string) => void>();

export function getPastedKey(): string {
  return pastedKey;
}

export function setPastedKey(key: string): void {
  pastedKey = key;
  for (const listener of listeners) listener(key);
}

export function onPastedKey(listener: (key: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function v1(path: string, key: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`/v1${path}`, {
      ...init,
      credentials: 'omit',
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', err instanceof Error ? err.message : String(err));
  }
  if (!response.ok) throw await errorFrom(response);
  return response;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

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
  key: string,
  body: { model: string; messages: readonly ChatMessage[] },
  handlers: StreamHandlers,
  signal: AbortSignal,
): Promise<StreamResult> {
  const response = await v1('/chat/completions', key, {
    ...json({ ...body, stream: true, stream_options: { include_usage: true } }),
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
  key: string,
  body: { model: string; prompt: string; size?: string },
  signal: AbortSignal,
): Promise<ImageResult> {
  return (await v1('/images/generations', key, { ...json({ ...body, n: 1 }), signal })).json();
}

export async function synthesizeSpeech(
  key: string,
  body: { model: string; input: string; voice: string },
  signal: AbortSignal,
): Promise<{ audio: Blob; cost: number | undefined }> {
  const response = await v1('/audio/speech', key, { ...json(body), signal });
  const cost = response.headers.get('x-service-cost');
  return { audio: await response.blob(), cost: cost === null ? undefined : Number(cost) };
}

export async function startVideo(
  key: string,
  body: { model: string; prompt: string; duration?: number; aspect_ratio?: string },
  signal: AbortSignal,
): Promise<Video> {
  return (await v1('/videos', key, { ...json(body), signal })).json();
}

export async function getVideo(key: string, id: string, signal: AbortSignal): Promise<Video> {
  return (await v1(`/videos/${encodeURIComponent(id)}`, key, { signal })).json();
}

export async function videoContent(key: string, id: string, signal?: AbortSignal): Promise<Blob> {
  return (await v1(`/videos/${encodeURIComponent(id)}/content`, key, { signal })).blob();
}
