import { describe, expect, it } from 'vitest';
import {
  clientErrorFor,
  failureFromStatus,
  failureFromTransport,
} from '../../../../shared/src/upstream/upstream-failure.ts';

describe('upstream failure classification', () => {
  it('retries on 429, 5xx, auth and not-found answers and on transport failures, not on rejections', () => {
    for (const status of [429, 500, 502, 503, 529, 401, 403, 404, 408]) {
      expect(failureFromStatus('openai', status, 'x').retryable, String(status)).toBe(true);
    }
    for (const status of [400, 413, 422])
      expect(failureFromStatus('openai', status, 'x').retryable).toBe(false);
    expect(failureFromTransport('openai', 'connect_timeout').retryable).toBe(true);
    expect(failureFromTransport('openai', 'connection').retryable).toBe(true);
    expect(failureFromTransport('openai', 'aborted').retryable).toBe(false);
  });

  it('answers 429 rate_limit_error only when every route was rate limited', () => {
    const all429 = clientErrorFor([failureFromStatus('a', 429, 'x'), failureFromStatus('b', 429, 'y')]);
    expect([all429.status, all429.type, all429.code]).toEqual([429, 'rate_limit_error', 'rate_limit_error']);
    const mixed = clientErrorFor([failureFromStatus('a', 429, 'x'), failureFromStatus('b', 500, 'y')]);
    expect([mixed.status, mixed.type, mixed.code]).toEqual([502, 'upstream_error', 'upstream_error']);
  });

  it('answers 504 when every route timed out connecting, else 502', () => {
    const timeouts = clientErrorFor([failureFromTransport('a', 'connect_timeout')]);
    expect([timeouts.status, timeouts.type]).toEqual([504, 'upstream_error']);
    const other = clientErrorFor([
      failureFromTransport('a', 'connect_timeout'),
      failureFromTransport('b', 'connection'),
    ]);
    expect(other.status).toBe(502);
  });

  it('answers 499 client_closed_request when the call was cancelled because the client went away', () => {
    const gone = clientErrorFor([failureFromStatus('a', 503, 'busy'), failureFromTransport('b', 'aborted')]);
    expect([gone.status, gone.code]).toEqual([499, 'client_closed_request']);
    expect(failureFromTransport('b', 'aborted').retryable).toBe(false);
  });

  it("keeps the provider's rejection status as invalid_request_error", () => {
    for (const status of [400, 413, 422]) {
      const error = clientErrorFor([failureFromStatus('a', status, 'max_tokens too large')]);
      expect([error.status, error.type, error.code]).toEqual([
        status,
        'invalid_request_error',
        'invalid_request_error',
      ]);
      expect(error.message).toContain('max_tokens too large');
    }
  });
});
