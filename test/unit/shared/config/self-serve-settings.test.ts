import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../shared/src/config/config.ts';

const minimal = { REDIS_URL: 'redis://127.0.0.1:6390' };
const MERCHANT = '1344b5d4-0048-11e8-94db-005056a205be';

function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig({ ...minimal, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('sign-up, mail and payment settings', () => {
  it('defaults: invite-only sign-up, mails to .local/mail, no gateway, 10,000 to 100,000,000 Toman', () => {
    const config = loadConfig(minimal);
    expect(config.signupMode).toBe('invite');
    expect(config.mail).toEqual({
      smtpUrl: undefined,
      from: 'Model gateway <no-reply@gateway.local>',
      dir: '.local/mail',
    });
    expect(config.payments).toEqual({ zarinpal: undefined, minToman: 10_000, maxToman: 100_000_000 });
  });

  it('enables Zarinpal with a merchant id, on its production address unless told', () => {
    expect(loadConfig({ ...minimal, ZARINPAL_MERCHANT_ID: MERCHANT }).payments.zarinpal).toEqual({
      merchantId: MERCHANT,
      baseUrl: 'https://payment.zarinpal.com',
    });
    const sandbox = loadConfig({
      ...minimal,
      ZARINPAL_MERCHANT_ID: MERCHANT,
      ZARINPAL_BASE_URL: 'https://sandbox.zarinpal.com/',
    });
    expect(sandbox.payments.zarinpal?.baseUrl).toBe('https://sandbox.zarinpal.com');
  });

  it('reads SIGNUP_MODE, SMTP_URL, MAIL_FROM, MAIL_DIR and the limits', () => {
    const config = loadConfig({
      ...minimal,
      SIGNUP_MODE: 'open',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      MAIL_FROM: 'GW <gw@example.com>',
      MAIL_DIR: '/tmp/mail',
      PAYMENT_MIN_TOMAN: '5000',
      PAYMENT_MAX_TOMAN: '9000',
    });
    expect(config.signupMode).toBe('open');
    expect(config.mail).toEqual({
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      from: 'GW <gw@example.com>',
      dir: '/tmp/mail',
    });
    expect(config.payments).toMatchObject({ minToman: 5000, maxToman: 9000 });
  });

  it('names every bad setting', () => {
    expect(problemsOf({ SIGNUP_MODE: 'everyone' })[0]).toMatch(/^SIGNUP_MODE/);
    expect(problemsOf({ SMTP_URL: 'http://mail' })[0]).toMatch(/^SMTP_URL must be a URL starting with smtp:/);
    expect(problemsOf({ ZARINPAL_MERCHANT_ID: 'short' })[0]).toMatch(
      /^ZARINPAL_MERCHANT_ID must be the 36-character/,
    );
    expect(problemsOf({ ZARINPAL_BASE_URL: 'ftp://x' })[0]).toMatch(/^ZARINPAL_BASE_URL/);
    expect(problemsOf({ PAYMENT_MIN_TOMAN: '1.5' })[0]).toMatch(/^PAYMENT_MIN_TOMAN must be a whole number/);
    expect(problemsOf({ PAYMENT_MIN_TOMAN: '20', PAYMENT_MAX_TOMAN: '10' })).toEqual([
      'PAYMENT_MIN_TOMAN must not be above PAYMENT_MAX_TOMAN',
    ]);
  });
});
