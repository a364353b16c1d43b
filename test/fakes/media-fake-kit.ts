/**
 * Shared plumbing of the Google, ElevenLabs and Runway media fakes: reading JSON and multipart
 * bodies as the real servers do, and writing a reply under the shared BehaviourScript:
 * `status` is answered by the fake itself (each provider has its own error body); `slow` delays;
 * `fail-mid-stream` answers a JSON reply with 500 and cuts a binary one after half its bytes
 * (`disconnect`), or answers 500 (`error-event`); `stall-mid-stream` sends half a binary answer
 * (or nothing) and never ends.
 */
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from '../helpers/fake-upstream.ts';
import type { FakeBehaviour } from './fake-behaviour.ts';

export type Json = Record<string, unknown>;

export type MediaReply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'bytes'; status: number; contentType: string; body: Buffer; headers?: Record<string, string> };

export function json(body: unknown, status = 200, headers?: Record<string, string>): MediaReply {
  return { kind: 'json', status, body, ...(headers ? { headers } : {}) };
}

export function bytes(body: Buffer, contentType: string, headers?: Record<string, string>): MediaReply {
  return { kind: 'bytes', status: 200, contentType, body, ...(headers ? { headers } : {}) };
}

export function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The JSON object of a request body, or undefined when it is not one. */
export function jsonOf(request: RecordedRequest): Json | undefined {
  try {
    return asRecord(JSON.parse(request.body.toString('utf8')));
  } catch {
    return undefined;
  }
}

/** The multipart form of a request body (parsed by the web `Request`), or undefined. */
export async function formOf(request: RecordedRequest): Promise<FormData | undefined> {
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return undefined;
  try {
    return await new Request('http://fake.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(request.body),
    }).formData();
  } catch {
    return undefined;
  }
}

export function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function end(res: ServerResponse, reply: MediaReply): void {
  const body = reply.kind === 'json' ? Buffer.from(JSON.stringify(reply.body)) : reply.body;
  const contentType = reply.kind === 'json' ? 'application/json' : reply.contentType;
  res.writeHead(reply.status, {
    'content-type': contentType,
    'content-length': String(body.length),
    ...reply.headers,
  });
  res.end(body);
}

/** Writes a reply as the behaviour says; `serverError` is the provider's 500 answer. */
export async function writeReply(
  res: ServerResponse,
  reply: MediaReply,
  behaviour: FakeBehaviour,
  serverError: MediaReply,
): Promise<void> {
  const cut = behaviour.kind === 'fail-mid-stream' || behaviour.kind === 'stall-mid-stream';
  if (!cut || reply.status !== 200) return end(res, reply);
  if (reply.kind === 'json') {
    if (behaviour.kind === 'fail-mid-stream') end(res, serverError);
    return; // stall: never answers; close() cuts it
  }
  if (behaviour.kind === 'fail-mid-stream' && behaviour.mode === 'error-event') return end(res, serverError);
  res.writeHead(200, { 'content-type': reply.contentType, 'content-length': String(reply.body.length) });
  await new Promise<void>((resolve) =>
    res.write(reply.body.subarray(0, reply.body.length >> 1), () => resolve()),
  );
  if (behaviour.kind === 'fail-mid-stream') res.socket?.destroy();
}

/**
 * How a media fake answers one request: a refused credential (`denied`), else the scripted status
 * or delay, else what `route` answers, written as the behaviour says. `statusReply` is the
 * provider's own error answer for a status.
 */
export async function answerScripted(
  res: ServerResponse,
  behaviour: FakeBehaviour,
  denied: MediaReply | undefined | null,
  statusReply: (status: number, retryAfterSeconds?: number) => MediaReply,
  route: () => MediaReply | Promise<MediaReply>,
): Promise<void> {
  if (denied) return writeReply(res, denied, { kind: 'ok' }, statusReply(500));
  if (behaviour.kind === 'status') {
    const reply = statusReply(behaviour.status, behaviour.retryAfterSeconds);
    return writeReply(res, reply, behaviour, statusReply(500));
  }
  if (behaviour.kind === 'slow') await sleep(behaviour.delayMs);
  await writeReply(res, await route(), behaviour, statusReply(500));
}

/** A small deterministic hash of a text, for ids and seeds. */
export function hashOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
