import { AppError, errors } from '../errors/app-error.ts';
import { scrubSecrets } from './secret-scrubber.ts';
import type { TransportFailure } from './upstream-client.ts';

/** One failed attempt at one route, classified once; the gateway decides from these alone. */
export interface UpstreamFailure {
  readonly provider: string;
  /** The upstream's HTTP status, or null when it gave none (network failure, timeout). */
  readonly status: number | null;
  readonly transport: TransportFailure | null;
  /** Client-safe text (the adapter's reading of the provider's error body). */
  readonly message: string;
  /** True when another route may succeed where this one failed. */
  readonly retryable: boolean;
  /** The provider refused the gateway's own credential (its channel is then auto-disabled). */
  readonly credentialRejected?: boolean;
  /** An upstream 429's `Retry-After`, in milliseconds (the channel's cooldown when its breaker opens). */
  readonly retryAfterMs?: number | null;
}

/** Statuses that mean the request itself is wrong: another route would refuse it too. */
const REJECTIONS = new Set([400, 413, 422]);

/**
 * Classifies an upstream HTTP answer that was not a success. The message (an adapter's reading of
 * the error body, already sanitized there) is scrubbed of held secrets once more: every failure that
 * can become a client's AppError or a media job's stored error passes here.
 */
export function failureFromStatus(
  provider: string,
  status: number,
  message: string,
  extra: Pick<UpstreamFailure, 'credentialRejected' | 'retryAfterMs'> = {},
): UpstreamFailure {
  return {
    provider,
    status,
    transport: null,
    message: scrubSecrets(message),
    retryable: !REJECTIONS.has(status),
    ...extra,
  };
}

/** A `Retry-After` header (seconds or an HTTP date) in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Whether an upstream status refuses the gateway's own credential (not the client's request). */
export function isCredentialRefusal(status: number): boolean {
  return status === 401 || status === 403;
}

/** Classifies an upstream call that produced no answer. */
export function failureFromTransport(provider: string, transport: TransportFailure): UpstreamFailure {
  const message =
    transport === 'connect_timeout' ? 'connecting to the provider timed out' : 'the provider did not answer';
  return { provider, status: null, transport, message, retryable: transport !== 'aborted' };
}

/**
 * The client's error once every route was tried (spec, Errors): a call cancelled because the
 * client went away is 499 `client_closed_request`; the provider's own rejection keeps its status
 * as `invalid_request_error`; all routes rate-limited is 429 `rate_limit_error`; only
 * connect timeouts is 504; anything else is 502 `upstream_error`.
 */
export function clientErrorFor(failures: readonly UpstreamFailure[]): AppError {
  const last = failures.at(-1);
  // Cancelled because the client went away: nobody reads the answer, and no provider failed.
  if (last?.transport === 'aborted') return errors.clientClosedRequest();
  if (last !== undefined && last.status !== null && REJECTIONS.has(last.status)) {
    return new AppError(
      last.status,
      'invalid_request_error',
      'invalid_request_error',
      `The provider rejected the request: ${last.message}`,
    );
  }
  if (failures.length > 0 && failures.every((f) => f.status === 429)) return errors.upstreamRateLimited();
  if (failures.length > 0 && failures.every((f) => f.transport === 'connect_timeout')) {
    return new AppError(
      504,
      'upstream_error',
      'upstream_timeout',
      'Connecting to the provider timed out; retry with backoff.',
    );
  }
  const detail = last?.status ? ` (HTTP ${last.status})` : '';
  return new AppError(
    502,
    'upstream_error',
    'upstream_error',
    `The provider failed to answer${detail}; retry with backoff.`,
  );
}
