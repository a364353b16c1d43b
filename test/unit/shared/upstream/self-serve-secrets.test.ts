import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../shared/src/config/config.ts';
import { configuredSecrets } from '../../../../shared/src/upstream/secret-scrubber.ts';

describe('the secrets of mail and payments', () => {
  it('scrubs the SMTP password and the Zarinpal merchant id', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6390',
      SMTP_URL: 'smtps://mailer:sm%7Ftp-pass@mail.example.com:465',
      ZARINPAL_MERCHANT_ID: '1344b5d4-0048-11e8-94db-005056a205be',
    });
    expect(configuredSecrets(config)).toEqual([
      { source: 'mail.smtpUrl password', value: 'sm\u007ftp-pass' },
      { source: 'payments.zarinpal.merchantId', value: '1344b5d4-0048-11e8-94db-005056a205be' },
    ]);
  });
});
