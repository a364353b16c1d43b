import { AppError, errors } from '../errors/app-error.ts';
import type { GenAiOperation } from '../observability/semantic-attributes.ts';
import {
  endUpstreamAttempt,
  startUpstreamAttempt,
  upstreamOutcome,
} from '../observability/upstream-observation.ts';
import {
  type ProviderAdapter,
  UnsupportedFeatureError,
  UpstreamProtocolError,
  type UpstreamRequest,
} from '../providers/chat-types.ts';
import type { MediaHttpRequest } from '../providers/media-types.ts';
import type { RouteIdentity } from '../providers/route-identity.ts';
import { noteUpstreamAttempt, type RequestDraft } from '../request-log/request-draft.ts';
import { scrubSecrets } from './secret-scrubber.ts';
import {
  classifyTransportError,
  type UpstreamClient,
  type UpstreamResponse,
  UpstreamTransportError,
} from './upstream-client.ts';
import {
  clientErrorFor,
  failureFromStatus,
  failureFromTransport,
  isCredentialRefusal,
  retryAfterMs,
  type UpstreamFailure,
} from './upstream-failure.ts';

/** One route failed; `failure` says whether another route may succeed. */
export class RouteFailure extends Error {
  readonly failure: UpstreamFailure;
  constructor(failure: UpstreamFailure) {
    super(failure.message);
    this.name = 'RouteFailure';
    this.failure = failure;
  }
}

/** `Retry-After` of the 503 when every route left is a probe already taken. */
const NO_ROUTE_RETRY_AFTER_SECONDS = 5;

/** Largest error body read from an upstream, to extract its message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Tries the routes in order until one succeeds. A retryable failure (429, 5xx, timeout, connection
 * error, broken answer, refused credential) moves on to the next route (the next channel of the
 * same provider first: routes come expanded per channel); a rejection of the request itself (400,
 * 413, 422) stops at once. When no route succeeds the client gets the spec's error for what
 * happened. Each attempt is counted by provider and outcome, traced as a GenAI `operation` span,
 * and reported to its channel (figures, breaker); a half-open channel whose one probe another
 * request holds is skipped. `draft`, the log record of the api request this work serves (none in
 * the workers), is told of each attempt made: its provider and channel are the last one's.
 */
export async function firstSuccessfulRoute<T, R extends RouteIdentity>(
  routes: readonly R[],
  operation: GenAiOperation,
  attempt: (route: R) => Promise<T>,
  draft?: RequestDraft,
): Promise<{ route: R; value: T }> {
  if (routes.length === 0) {
    throw new AppError(502, 'upstream_error', 'upstream_error', 'No provider is configured for this model.');
  }
  const failures: UpstreamFailure[] = [];
  for (let index = 0; index < routes.length; index += 1) {
    const route = routes[index] as R;
    const channel = route.channel;
    if (channel != null) {
      const admitted = channel.begin();
      if (admitted !== true && !(await admitted)) continue;
    }
    // The request log's provider and channel: the attempt that is made (an attempt skipped is none).
    if (draft !== undefined) noteUpstreamAttempt(draft, route.provider, channel?.id ?? null);
    const span = startUpstreamAttempt(operation, route.provider, route.nativeModel, channel?.id);
    let failure: UpstreamFailure;
    try {
      const value = await attempt(route);
      endUpstreamAttempt(span, route.provider, 'ok', false);
      channel?.succeeded();
      return { route, value };
    } catch (err) {
      try {
        failure = asFailure(route, err);
      } catch (refusal) {
        // The request itself cannot be served (a feature the provider lacks) or a bug: no fallback.
        endUpstreamAttempt(span, route.provider, '4xx', false);
        throw refusal;
      }
    }
    channel?.failed(failure);
    failures.push(failure);
    const fallback = failure.retryable && index < routes.length - 1;
    endUpstreamAttempt(span, route.provider, upstreamOutcome(failure.status, failure.transport), fallback);
    if (!failure.retryable) break;
  }
  // Every channel left was a half-open one whose probe another request holds.
  if (failures.length === 0) throw errors.noHealthyRoute(NO_ROUTE_RETRY_AFTER_SECONDS);
  throw clientErrorFor(failures);
}

/** How an adapter reads its provider's error answers. */
type ErrorReading = Pick<ProviderAdapter, 'errorMessage' | 'isCredentialRejection'>;

/** Sends a request to an HTTP route; resolves only with a 2xx answer, else throws RouteFailure. */
export async function sendToRoute(
  client: UpstreamClient,
  provider: string,
  adapter: ErrorReading,
  request: UpstreamRequest | MediaHttpRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const response =
    'method' in request ? await client.sendMedia(request, signal) : await client.send(request, signal);
  if (response.status >= 200 && response.status < 300) return response;
  const text = await readBounded(response.body, MAX_ERROR_BODY_BYTES).catch(() => '');
  const message = adapter.errorMessage(response.status, text);
  // A refused gateway credential is the provider's failure, not the client's, whatever its status.
  const refused =
    isCredentialRefusal(response.status) || adapter.isCredentialRejection?.(response.status, text) === true;
  const status = refused ? 502 : response.status;
  const retryAfter = response.status === 429 ? retryAfterMs(response.headers['retry-after']) : null;
  throw new RouteFailure(
    failureFromStatus(provider, status, message, { credentialRejected: refused, retryAfterMs: retryAfter }),
  );
}

/** The JSON body of a 2xx answer; a body that is not JSON is a broken answer (502, next route). */
export async function readJsonBody(response: UpstreamResponse): Promise<unknown> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (err) {
    throw classifyTransportError(err);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UpstreamProtocolError('the provider answered with a body that is not JSON');
  }
}

function asFailure(route: RouteIdentity, err: unknown): UpstreamFailure {
  if (err instanceof RouteFailure) return err.failure;
  if (err instanceof UpstreamTransportError) return failureFromTransport(route.provider, err.failure);
  if (err instanceof UnsupportedFeatureError) {
    // Its text may quote the upstream's answer (e.g. Gemini's block reason): no held secret passes.
    throw new AppError(400, 'invalid_request_error', 'invalid_request_error', scrubSecrets(err.message));
  }
  if (err instanceof UpstreamProtocolError) {
    return failureFromStatus(route.provider, 502, 'the provider answered in an unexpected shape');
  }
  throw err;
}

async function readBounded(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.byteLength;
  }
  return Buffer.concat(chunks).toString('utf8');
}
