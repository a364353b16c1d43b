import { describe, expect, it } from 'vitest';
import {
  errorMessage,
  isCredentialRejection,
} from '../../../../../shared/src/providers/openai-compatible/error-message.ts';

const body = (json: unknown) => JSON.stringify(json);

describe('errorMessage', () => {
  it('reads OpenAI’s error body and removes the masked key and the URL', () => {
    const text = body({
      error: {
        message:
          'Incorrect API key provided: sk-proj-****************abcd. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect(errorMessage(401, text)).toBe(
      'Incorrect API key provided: [redacted]. You can find your API key at [url]',
    );
  });

  it('reads a 400 invalid_request_error message as is', () => {
    const text = body({
      error: {
        message:
          "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'empty_array',
      },
    });
    expect(errorMessage(400, text)).toBe(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    );
  });

  it('reads xAI’s string error and DeepSeek’s masked key', () => {
    expect(
      errorMessage(
        400,
        body({
          code: 'Client specified an invalid argument',
          error: 'Incorrect API key provided: xa***ab. You can obtain an API key from https://console.x.ai.',
        }),
      ),
    ).toBe('Incorrect API key provided: [redacted]. You can obtain an API key from [url]');
    expect(
      errorMessage(
        401,
        body({
          error: {
            message: 'Authentication Fails, Your api key: ****abcd is invalid',
            type: 'authentication_error',
            param: null,
            code: 'invalid_request_error',
          },
        }),
      ),
    ).toBe('Authentication Fails, Your api key: [redacted] is invalid');
  });

  it('reads xAI’s bare-string and percent-encoded bodies', () => {
    expect(
      errorMessage(
        400,
        body('Incorrect API key provided: na***ys. You can obtain an API key from https://console.x.ai.'),
      ),
    ).toBe('Incorrect API key provided: [redacted]. You can obtain an API key from [url]');
    const encoded = body({
      code: 'Client specified an invalid argument',
      error: 'Incorrect%20API%20key%20provided:%20ba***na.',
    });
    expect(errorMessage(400, encoded)).toBe('Incorrect API key provided: [redacted].');
  });

  it('recognizes a refused gateway key, including xAI’s 400', () => {
    expect(isCredentialRejection(401, '')).toBe(true);
    expect(
      isCredentialRejection(
        400,
        body({ code: 'Client specified an invalid argument', error: 'Incorrect API key provided: xa***b.' }),
      ),
    ).toBe(true);
    expect(
      isCredentialRejection(
        400,
        body({ error: { message: "Invalid 'messages': empty array.", type: 'invalid_request_error' } }),
      ),
    ).toBe(false);
    expect(isCredentialRejection(429, body({ error: { message: 'Invalid API key' } }))).toBe(false);
  });

  it('reads Mistral’s bodies: plain message, and 422 validation detail', () => {
    expect(errorMessage(401, body({ message: 'Unauthorized', request_id: 'b1f0' }))).toBe('Unauthorized');
    const detail = [
      {
        type: 'extra_forbidden',
        loc: ['body', 'stream_options'],
        msg: 'Extra inputs are not permitted',
        input: {},
      },
    ];
    expect(
      errorMessage(
        422,
        body({
          object: 'error',
          message: { detail },
          type: 'invalid_request_error',
          param: null,
          code: null,
        }),
      ),
    ).toBe('body.stream_options: Extra inputs are not permitted');
    expect(errorMessage(422, body({ detail }))).toBe('body.stream_options: Extra inputs are not permitted');
  });

  it('never returns an undocumented body, and falls back by status', () => {
    expect(errorMessage(502, '<html>Bad gateway at 10.0.0.7</html>')).toBe(
      'The provider failed to answer (HTTP 502).',
    );
    expect(errorMessage(400, body({ foo: 'bar' }))).toBe('The provider rejected the request (HTTP 400).');
    expect(errorMessage(401, '')).toBe("The provider refused the gateway's credentials (HTTP 401).");
    expect(errorMessage(429, body({ error: { message: '' } }))).toBe(
      'The provider is rate limiting requests (HTTP 429).',
    );
  });
});
