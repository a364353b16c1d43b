import { describe, expect, it } from 'vitest';
import { installSecretScrubber } from '../../../../shared/src/upstream/secret-scrubber.ts';
import { sanitizeUpstreamText } from '../../../../shared/src/upstream/upstream-text.ts';

describe('sanitizeUpstreamText', () => {
  it('removes keys, hosts and addresses but keeps field paths and model names', () => {
    expect(
      sanitizeUpstreamText('key hk-live-123 from 10.1.2.3:8080 via localhost:9000 to api.groq.com'),
    ).toBe('key [redacted] from [host] via [host] to [host]');
    expect(sanitizeUpstreamText('gsk_abcDEF123 and xai-XYZ and k9Z8x7W6v5U4t3S2r1Q0p9O8n7M6')).toBe(
      '[redacted] and [redacted] and [redacted]',
    );
    expect(sanitizeUpstreamText("Invalid 'messages[0].content' for gpt-4.1-mini in body.max_tokens")).toBe(
      "Invalid 'messages[0].content' for gpt-4.1-mini in body.max_tokens",
    );
  });

  it('removes URLs whole, with a key in their query', () => {
    expect(sanitizeUpstreamText('see https://x.example.com/v1?key=abcdefghij&alt=sse, then retry')).toBe(
      'see [url] then retry',
    );
    expect(sanitizeUpstreamText('Head to: https://ai.google.dev/gemini-api/docs/rate-limits. Key')).toBe(
      'Head to: [url] Key',
    );
  });

  it('removes masked keys and account identifiers from rate-limit messages', () => {
    expect(
      sanitizeUpstreamText(
        'Rate limit reached for gpt-4o in organization org-AbC123xyz on tokens per min (TPM)',
      ),
    ).toBe('Rate limit reached for gpt-4o in organization [redacted] on tokens per min (TPM)');
    expect(sanitizeUpstreamText('Your api key: ****abcd is invalid, and xa***ab too')).toBe(
      'Your api key: [redacted] is invalid, and [redacted] too',
    );
  });

  it('removes a configured key that has no known shape', () => {
    installSecretScrubber({
      providers: { mistral: { baseUrl: 'http://m', apiKey: 'onlyLettersInThisMistralKey' } } as never,
      compatibleUpstreams: {},
      adminToken: undefined,
      s3: { secretAccessKey: undefined } as never,
    });
    expect(sanitizeUpstreamText('Unauthorized key onlyLettersInThisMistralKey.')).toBe(
      'Unauthorized key [redacted].',
    );
  });

  it('collapses whitespace, bounds the length with an ellipsis, and can leave nothing', () => {
    expect(sanitizeUpstreamText('a\n\n  b')).toBe('a b');
    const long = sanitizeUpstreamText('x'.repeat(1000));
    expect(long).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
    expect(sanitizeUpstreamText('x'.repeat(50), 20)).toHaveLength(20);
    expect(sanitizeUpstreamText('  \n ')).toBe('');
  });
});
