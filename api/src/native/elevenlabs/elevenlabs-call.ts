import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import type { MappedRequest } from '../../../../shared/src/native/map-json-model.ts';
import type { StreamCallSignal } from '../../streaming/stream-call-signal.ts';
import { forwardNative, type NativeAnswer, type NativeRejection } from '../forward-native.ts';
import type { NativeDeps } from '../native-deps.ts';
import { nativeTargets } from '../native-targets.ts';
import { nativeCall } from '../relay-native.ts';

/** The path prefix of ElevenLabs' API on the gateway. */
export const ELEVENLABS_PREFIX = '/elevenlabs';

/**
 * Upstream answer headers passed back besides `content-type`: ElevenLabs' request id (for the
 * client's support cases and request stitching), the history item and the characters it counted.
 */
export const ELEVENLABS_RESPONSE_HEADERS = ['request-id', 'history-item-id', 'x-character-count'] as const;

/** The gateway's own key carrier in the query (`?key=`): never sent upstream. */
const GATEWAY_KEY_PARAMETER = 'key';

/** The body of a native request, as the raw-body parser keeps it; 400 when there is none. */
export function rawBodyOf(request: Pick<FastifyRequest, 'body'>): Buffer {
  if (!Buffer.isBuffer(request.body)) throw errors.invalidRequest('The request has no body.');
  return request.body;
}

/**
 * The query string sent upstream: the client's as sent (`output_format`, `enable_logging`,
 * `optimize_streaming_latency`, …), without the gateway key's `key` parameter.
 */
function upstreamQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return '';
  const kept = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => pair !== '' && new URLSearchParams(pair).keys().next().value !== GATEWAY_KEY_PARAMETER);
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** The one value of a query parameter the gateway bills by (from the parsed query); 400 when it is given twice. */
export function singleQueryValue(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, string | string[] | undefined>)[name];
  if (Array.isArray(value)) throw errors.invalidRequest(`The query parameter \`${name}\` appears twice.`);
  return value;
}

/** An ElevenLabs request ready to forward: its upstream path and the content type of its body. */
export interface ElevenLabsCall {
  /** The upstream path (`/v1/…`), without the query. */
  readonly path: string;
  readonly contentType: string;
  readonly mapped: MappedRequest;
}

/**
 * Sends an ElevenLabs request on its model's routes (forwardNative): the body with only its model
 * rewritten, the client's query but for the gateway key, and the gateway's own `xi-api-key` (the
 * client's key never goes upstream). A 401 or 403 is ElevenLabs refusing the gateway's key or
 * account (quota), never the client's: the next route is tried.
 */
export async function forwardElevenLabs(
  deps: NativeDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: ElevenLabsCall,
): Promise<{ result: NativeAnswer | NativeRejection; upstream: StreamCallSignal }> {
  const upstream = nativeCall(reply, deps);
  const query = upstreamQuery(request.url);
  const result = await forwardNative(deps.client, {
    operation: 'generate_content',
    draft: request.requestCapture?.draft,
    targets: nativeTargets(deps.channels, call.mapped.model, call.mapped.routes),
    request: (target) => ({
      url: `${target.baseUrl}${call.path}${query}`,
      headers: { 'content-type': call.contentType, 'xi-api-key': target.apiKey },
      body: call.mapped.body(target.route),
    }),
    isCredentialRejection: (status) => status === 401 || status === 403,
    signal: upstream.signal,
  });
  return { result, upstream };
}
