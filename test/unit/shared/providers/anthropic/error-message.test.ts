import { describe, expect, it } from 'vitest';
import { anthropicAdapter, statusForErrorType } from '../../../../../shared/src/providers/anthropic/index.ts';

const body = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });

describe('Anthropic error messages', () => {
  it('returns the documented error.message for each documented status', () => {
    const cases: [number, string, string][] = [
      [400, 'invalid_request_error', 'messages: roles must alternate between "user" and "assistant"'],
      [401, 'authentication_error', 'invalid x-api-key'],
      [403, 'permission_error', 'Your API key does not have permission to use the specified resource.'],
      [404, 'not_found_error', 'model: claude-unknown'],
      [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
      [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
      [500, 'api_error', 'Internal server error'],
      [529, 'overloaded_error', 'Overloaded'],
    ];
    for (const [status, type, message] of cases) {
      expect(anthropicAdapter.errorMessage(status, body(type, message))).toBe(message);
      expect(statusForErrorType(type)).toBe(status);
    }
  });

  it('removes keys, URLs and hosts from the message', () => {
    const leaky = body(
      'authentication_error',
      'invalid x-api-key sk-ant-api03-AbCdEf_123 for https://internal.example.com/v1 at api.anthropic.com:443 via 10.0.0.7:8080, hk-secret9',
    );
    const message = anthropicAdapter.errorMessage(401, leaky);
    expect(message).toBe('invalid x-api-key [redacted] for [url] at [host] via [host], [redacted]');
    expect(
      anthropicAdapter.errorMessage(
        400,
        body('invalid_request_error', 'messages.0.content.1.image.source.base64: invalid'),
      ),
    ).toBe('messages.0.content.1.image.source.base64: invalid');
  });

  it('never returns a body that is not the documented shape', () => {
    expect(anthropicAdapter.errorMessage(502, '<html>Bad gateway at lb-7.internal</html>')).toBe(
      'The provider answered HTTP 502.',
    );
    expect(anthropicAdapter.errorMessage(529, '{"message":"sk-ant-leak"}')).toBe(
      'The provider answered HTTP 529 (overloaded error).',
    );
    expect(anthropicAdapter.errorMessage(500, body('api_error', '   '))).toBe(
      'The provider answered HTTP 500 (api error).',
    );
    expect(
      anthropicAdapter.errorMessage(400, body('invalid_request_error', 'x'.repeat(1000))).length,
    ).toBeLessThanOrEqual(300);
  });
});
