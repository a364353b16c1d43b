import { Readable } from 'node:stream';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import { UpstreamProtocolError } from '../../../shared/src/providers/chat-types.ts';
import type { MediaRoute } from '../../../shared/src/providers/media-registry.ts';
import type { MediaHttpRequest, MediaProviderAdapter } from '../../../shared/src/providers/media-types.ts';
import { readJsonBody, sendToRoute } from '../../../shared/src/upstream/route-attempts.ts';
import type { UpstreamResponse } from '../../../shared/src/upstream/upstream-client.ts';
import type { MediaWorkerDeps } from './media-worker-deps.ts';

/** An HTTP media route, narrowed. */
export type HttpMediaRoute = Extract<MediaRoute, { kind: 'http' }>;

/** The adapter capability a job needs, or a clear failure when the route's provider lacks it. */
export function capabilityOf<K extends keyof MediaProviderAdapter>(route: HttpMediaRoute, capability: K) {
  const adapter = route.adapter[capability];
  if (adapter === undefined) {
    throw new AppError(
      502,
      'upstream_error',
      'upstream_error',
      `${route.provider} has no ${String(capability)} capability`,
    );
  }
  return adapter as NonNullable<MediaProviderAdapter[K]>;
}

/** Sends a media request (no client waits on a worker, so nothing aborts it but its timeouts). */
export function send(
  deps: MediaWorkerDeps,
  route: HttpMediaRoute,
  request: MediaHttpRequest,
): Promise<UpstreamResponse> {
  return sendToRoute(deps.client, route.provider, route.adapter, request, new AbortController().signal);
}

export async function sendForJson(
  deps: MediaWorkerDeps,
  route: HttpMediaRoute,
  request: MediaHttpRequest,
): Promise<unknown> {
  return readJsonBody(await send(deps, route, request));
}

/** A binary answer as a stream, after checking it is the kind of media expected. */
export async function sendForMedia(
  deps: MediaWorkerDeps,
  route: HttpMediaRoute,
  request: MediaHttpRequest,
  expected: RegExp,
): Promise<Readable> {
  const response = await send(deps, route, request);
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
export async function downloadBytes(
  deps: MediaWorkerDeps,
  route: HttpMediaRoute,
  request: MediaHttpRequest,
): Promise<Uint8Array> {
  const response = await send(deps, route, request);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
