import { errors } from '../../../shared/src/errors/app-error.ts';
import type { GenAiOperation } from '../../../shared/src/observability/semantic-attributes.ts';
import {
  endUpstreamAttempt,
  startUpstreamAttempt,
  upstreamOutcome,
} from '../../../shared/src/observability/upstream-observation.ts';
import { noteUpstreamAttempt, type RequestDraft } from '../../../shared/src/request-log/request-draft.ts';
import { scrubSecrets } from '../../../shared/src/upstream/secret-scrubber.ts';
import {
  type ForwardRequest,
  type TransportFailure,
  type UpstreamClient,
  type UpstreamResponse,
  UpstreamTransportError,
} from '../../../shared/src/upstream/upstream-client.ts';
import {
  failureFromStatus,
  failureFromTransport,
  isCredentialRefusal,
  retryAfterMs,
} from '../../../shared/src/upstream/upstream-failure.ts';
import type { NativeTarget } from './native-targets.ts';

/** Largest provider error body passed through to the client. */
const MAX_REJECTION_BYTES = 64 * 1024;
/** `Retry-After` of the 503 when no route answered. */
const NO_ROUTE_RETRY_AFTER_SECONDS = 5;

/** A native request over a model's routes: how to address each one, and how a provider refuses. */
export interface NativeCall {
  readonly targets: readonly NativeTarget[];
  /** The upstream request for one route (its URL, credential headers and body). */
  request(target: NativeTarget): ForwardRequest;
  /**
   * Whether a 4xx refusal (its status and its error body, scrubbed) is the provider rejecting the
   * gateway's own credential, never the client's request: Google answers a bad key with 400.
   */
  isCredentialRejection(status: number, body: string): boolean;
  /** Aborted when the client goes away: the upstream call is cancelled. */
  readonly signal: AbortSignal;
  /** What the call does, for its traces (`gen_ai.operation.name`); `chat` unless stated. */
  readonly operation?: GenAiOperation;
  /** The request's log record in the making: told of each attempt made (its provider and channel). */
  readonly draft?: RequestDraft | undefined;
}

/** A route answered 2xx: its body is still streaming. */
export interface NativeAnswer {
  readonly kind: 'answer';
  readonly target: NativeTarget;
  readonly response: UpstreamResponse;
}

/** The provider refused the request itself (a 4xx of its own): passed through in its own format. */
export interface NativeRejection {
  readonly kind: 'rejection';
  readonly status: number;
  readonly contentType: string;
  /** The provider's error body, with the gateway's credentials and other held secrets scrubbed. */
  readonly body: string;
}

/**
 * Sends a native request on its model's routes in order until one answers 2xx. A 429, a 5xx, a
 * timeout or a refused gateway credential moves on to the next route before anything reaches the
 * client; any other 4xx is the provider judging the request, passed through (another route would
 * judge it alike). When every route failed: 429 `rate_limit_error` if all were rate limited, else
 * 503 `upstream_error` (no healthy route). A call cancelled because the client went away ends
 * there: 499 `client_closed_request`.
 */
export async function forwardNative(
  client: UpstreamClient,
  call: NativeCall,
): Promise<NativeAnswer | NativeRejection> {
  const statuses: Array<number | null> = [];
  const draft = call.draft;
  for (let index = 0; index < call.targets.length; index += 1) {
    const target = call.targets[index] as NativeTarget;
    const { provider, native_id: model } = target.route;
    const channel = target.channel;
    if (channel !== undefined) {
      const admitted = channel.begin();
      // A half-open channel whose one probe another request holds: skipped.
      if (admitted !== true && !(await admitted)) continue;
    }
    // The request log's provider and channel: the attempt that is made (an attempt skipped is none).
    if (draft !== undefined) noteUpstreamAttempt(draft, provider, channel?.id ?? null);
    const span = startUpstreamAttempt(call.operation ?? 'chat', provider, model, channel?.id);
    const more = index < call.targets.length - 1;
    let response: UpstreamResponse;
    try {
      const request = call.request(target);
      response = await (target.simulate?.(request) ?? client.forward(request, call.signal));
    } catch (err) {
      const transport = err instanceof UpstreamTransportError ? err.failure : 'connection';
      const retryable = err instanceof UpstreamTransportError && err.failure !== 'aborted';
      endUpstreamAttempt(span, provider, upstreamOutcome(null, transport), retryable && more);
      if (retryable) {
        channel?.failed(failureFromTransport(provider, transport as TransportFailure));
        statuses.push(null);
        continue;
      }
      // Cancelled because the client went away: no other route is tried, no provider failed.
      if (transport === 'aborted') throw errors.clientClosedRequest();
      throw err;
    }
    if (response.status >= 200 && response.status < 300) {
      endUpstreamAttempt(span, provider, 'ok', false);
      channel?.succeeded();
      return { kind: 'answer', target, response };
    }
    if (response.status === 429 || response.status >= 500) {
      endUpstreamAttempt(span, provider, upstreamOutcome(response.status, null), more);
      await response.body.dump().catch(() => undefined);
      channel?.failed(
        failureFromStatus(provider, response.status, `HTTP ${response.status}`, {
          retryAfterMs: response.status === 429 ? retryAfterMs(response.headers['retry-after']) : null,
        }),
      );
      statuses.push(response.status);
      continue;
    }
    const rejection = await rejectionOf(response);
    if (
      isCredentialRefusal(rejection.status) ||
      call.isCredentialRejection(rejection.status, rejection.body)
    ) {
      // The gateway's credential refused: the provider's failure (counted as 5xx), not the client's.
      endUpstreamAttempt(span, provider, '5xx', more);
      channel?.failed(
        failureFromStatus(provider, 502, `HTTP ${rejection.status}`, { credentialRejected: true }),
      );
      statuses.push(rejection.status);
      continue;
    }
    if (rejection.status === 404 && more) {
      // This channel does not serve the model: counted against it and that model, the next is tried.
      endUpstreamAttempt(span, provider, '4xx', true);
      channel?.failed(failureFromStatus(provider, 404, 'the model is not served here'));
      statuses.push(404);
      continue;
    }
    endUpstreamAttempt(span, provider, '4xx', false);
    return rejection;
  }
  if (statuses.length > 0 && statuses.every((status) => status === 429)) {
    throw errors.upstreamRateLimited();
  }
  throw errors.noHealthyRoute(NO_ROUTE_RETRY_AFTER_SECONDS);
}

async function rejectionOf(response: UpstreamResponse): Promise<NativeRejection> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    if (size < MAX_REJECTION_BYTES) chunks.push(chunk.subarray(0, MAX_REJECTION_BYTES - size));
    size += chunk.byteLength;
  }
  const contentType = response.headers['content-type'];
  return {
    kind: 'rejection',
    status: response.status,
    contentType: typeof contentType === 'string' ? contentType : 'application/json',
    body: scrubSecrets(Buffer.concat(chunks).toString('utf8')),
  };
}
