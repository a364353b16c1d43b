/** Video calls for the media end-to-end tests: create (JSON POST), poll with the SDK, raw requests. */
import type OpenAI from 'openai';
import { expect } from 'vitest';
import type { MediaGateway } from './media-gateway.ts';

/** The gateway's Video record (the SDK's `Video` type lacks the spec's and the extensions' fields). */
export interface VideoRecord {
  readonly id: string;
  readonly object: string;
  readonly model: string;
  readonly status: 'in_progress' | 'completed' | 'failed';
  readonly seconds: number;
  readonly aspect_ratio: string;
  readonly progress: number;
  readonly url?: string;
  readonly error?: { readonly message: string };
  readonly service?: { readonly cost: number; readonly currency: string };
}

export interface VideoBody {
  readonly model: string;
  readonly prompt: string;
  readonly duration?: number;
  readonly aspect_ratio?: string;
  readonly resolution?: string;
}

/** A request to `/v1/videos<path>` with a key. */
export function videoRequest(
  m: MediaGateway,
  key: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Response> {
  return fetch(`${m.gateway.origin}/v1/videos${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** `POST /v1/videos` with a JSON body; expects 202 and returns the Video record. */
export async function createVideo(m: MediaGateway, key: string, body: VideoBody): Promise<VideoRecord> {
  const response = await videoRequest(m, key, 'POST', '', {}, body);
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as VideoRecord;
}

/** Polls with the SDK's `videos.retrieve` until the video leaves `in_progress`; expects `status`. */
export async function pollVideo(
  client: OpenAI,
  id: string,
  status: 'completed' | 'failed' = 'completed',
  timeoutMs = 15_000,
): Promise<VideoRecord> {
  const deadline = Date.now() + timeoutMs;
  let video = (await client.videos.retrieve(id)) as unknown as VideoRecord;
  while (video.status === 'in_progress' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    video = (await client.videos.retrieve(id)) as unknown as VideoRecord;
  }
  expect(video.status, JSON.stringify(video)).toBe(status);
  return video;
}
