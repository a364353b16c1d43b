import { describe, expect, it } from 'vitest';
import {
  googleErrorMessage,
  isGoogleKeyRejection,
} from '../../../../../shared/src/providers/google/error-message.ts';

const body = (code: number, status: string, message: string, details?: unknown[]) =>
  JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });

describe('google error message', () => {
  it('gives status and message of the documented body', () => {
    expect(
      googleErrorMessage(
        400,
        body(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified\n'),
      ),
    ).toBe('Gemini INVALID_ARGUMENT: * GenerateContentRequest.contents: contents is not specified');
    expect(
      googleErrorMessage(404, body(404, 'NOT_FOUND', 'models/gemini-9 is not found for API version v1beta')),
    ).toBe('Gemini NOT_FOUND: models/gemini-9 is not found for API version v1beta');
  });

  it('reads the array-wrapped form', () => {
    expect(googleErrorMessage(503, `[${body(503, 'UNAVAILABLE', 'The model is overloaded.')}]`)).toBe(
      'Gemini UNAVAILABLE: The model is overloaded.',
    );
  });

  it('removes URLs, hosts, IPs and keys, and never uses details', () => {
    const message = googleErrorMessage(
      429,
      body(
        429,
        'RESOURCE_EXHAUSTED',
        'Quota exceeded. Head to: https://ai.google.dev/gemini-api/docs/rate-limits. Key AIzaSyA1234567890abcdefghijk on 10.0.0.5:443 via generativelanguage.googleapis.com sk-abc hk-def',
        [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', detail: 'Invalid API key: AIzaSECRET' }],
      ),
    );
    expect(message).toBe(
      'Gemini RESOURCE_EXHAUSTED: Quota exceeded. Head to: [url] Key [redacted] on [host] via [host] [redacted] [redacted]',
    );
    expect(message).not.toContain('SECRET');
  });

  it('never echoes a body that is not the documented shape', () => {
    expect(googleErrorMessage(502, '<html>Bad gateway at 10.1.2.3</html>')).toBe('Gemini HTTP 502');
    expect(googleErrorMessage(500, '{"message":"raw"}')).toBe('Gemini INTERNAL');
    expect(googleErrorMessage(429, '')).toBe('Gemini RESOURCE_EXHAUSTED');
  });

  it('recognises Google refusing the gateway key', () => {
    const invalidKey = body(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
    ]);
    expect(isGoogleKeyRejection(400, invalidKey)).toBe(true);
    expect(isGoogleKeyRejection(403, body(403, 'PERMISSION_DENIED', 'denied'))).toBe(true);
    expect(isGoogleKeyRejection(400, body(400, 'INVALID_ARGUMENT', 'bad field'))).toBe(false);
  });
});
