import { Readable } from 'node:stream';
import { UpstreamProtocolError } from '../providers/chat-types.ts';
import type { MediaHttpRequest, MediaProviderAdapter } from '../providers/media-types.ts';
import type { HttpRoute } from './http-route.ts';
import { RouteFailure, readJsonBody, sendToRoute } from './route-attempts.ts';
import type { UpstreamResponse } from './upstream-client.ts';
import { failureFromStatus } from './upstream-failure.ts';

/** An HTTP media route: the provider, its media adapter, where and as whom to call it. */
export type MediaUpstream = HttpRoute<MediaProviderAdapter>;

/**
 * The adapter capability a job needs. A provider that lacks it fails this route as a chat route
 * without chat does (502, the next route is tried), not the whole request.
 */
export function capabilityOf<K extends keyof MediaProviderAdapter>(route: MediaUpstream, capability: K) {
  const adapter = route.adapter[capability];
  if (adapter === undefined)
    throw new RouteFailure(failureFromStatus(route.provider, 502, `no ${String(capability)} capability`));
  return adapter as NonNullable<MediaProviderAdapter[K]>;
}

/** Sends a media request (no client waits on a worker, so nothing aborts it but its timeouts). */
export function send(route: MediaUpstream, request: MediaHttpRequest): Promise<UpstreamResponse> {
  return sendToRoute(route.client, route.provider, route.adapter, request, new AbortController().signal);
}

export async function sendForJson(route: MediaUpstream, request: MediaHttpRequest): Promise<unknown> {
  return readJsonBody(await send(route, request));
}

/** A binary answer as a stream, after checking it is the kind of media expected. */
export async function sendForMedia(
  route: MediaUpstream,
  request: MediaHttpRequest,
  expected: RegExp,
): Promise<Readable> {
  const response = await send(route, request);
  const type = String(response.headers['content-type'] ?? '');
  if (!expected.test(type)) {
    await response.body.dump();
    throw new UpstreamProtocolError(
      `the provider answered ${type || 'no content type'} where media was expected`,
    );
  }
  return Readable.from(response.body);
}

/** Downloads a whole (bounded) binary answer. */
export async function downloadBytes(route: MediaUpstream, request: MediaHttpRequest): Promise<Uint8Array> {
  const response = await send(route, request);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
