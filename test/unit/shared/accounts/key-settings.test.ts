import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KEY_SETTINGS,
  type KeySettingsInput,
  parseKeySettings,
} from '../../../../shared/src/accounts/key-settings.ts';
import { AppError } from '../../../../shared/src/errors/app-error.ts';

function rejection(input: Record<string, unknown>): AppError {
  try {
    parseKeySettings(input as KeySettingsInput);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('parseKeySettings', () => {
  it('returns only the fields given, in domain form', () => {
    expect(parseKeySettings({})).toEqual({});
    expect(
      parseKeySettings({
        name: 'ci',
        rate_limit: 3000,
        monthly_cap: 12.5,
        allowed_ips: ['::ffff:1.2.3.4', '1.2.3.4', '2001:DB8::1'],
        allowed_models: ['openai/gpt-5', 'openai/gpt-5'],
        identity_injection: false,
        expires_at: '2030-01-31T12:00:00+03:30',
        active: false,
      }),
    ).toEqual({
      name: 'ci',
      rateLimit: 3000,
      monthlyCapMicros: 12_500_000n,
      allowedIps: ['1.2.3.4', '2001:db8::1'],
      allowedModels: ['openai/gpt-5'],
      identityInjection: false,
      expiresAt: new Date('2030-01-31T08:30:00Z'),
      active: false,
    });
  });

  it('accepts null where null means "none"', () => {
    expect(parseKeySettings({ monthly_cap: null, allowed_models: null, expires_at: null })).toEqual({
      monthlyCapMicros: null,
      allowedModels: null,
      expiresAt: null,
    });
  });

  it('converts the cap exactly, at most 6 decimals', () => {
    expect(parseKeySettings({ monthly_cap: 0.000001 }).monthlyCapMicros).toBe(1n);
    expect(parseKeySettings({ monthly_cap: 1_000_000_000_000 }).monthlyCapMicros).toBe(10n ** 18n);
  });

  it('has the spec defaults', () => {
    expect(DEFAULT_KEY_SETTINGS).toMatchObject({
      rateLimit: 60,
      monthlyCapMicros: null,
      allowedIps: [],
      allowedModels: null,
      identityInjection: true,
      expiresAt: null,
      active: true,
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ rate_limit: 0 }, 'rate_limit'],
    [{ rate_limit: 3001 }, 'rate_limit'],
    [{ rate_limit: 1.5 }, 'rate_limit'],
    [{ rate_limit: '60' }, 'rate_limit'],
    [{ monthly_cap: 0 }, 'monthly_cap'],
    [{ monthly_cap: -1 }, 'monthly_cap'],
    [{ monthly_cap: 0.0000001 }, 'monthly_cap'],
    [{ monthly_cap: 1e13 }, 'monthly_cap'],
    [{ monthly_cap: '10' }, 'monthly_cap'],
    [{ allowed_ips: '1.2.3.4' }, 'allowed_ips'],
    [{ allowed_ips: ['1.2.3.4', '10.0.0.0/8'] }, 'allowed_ips[1]'],
    [{ allowed_ips: [42] }, 'allowed_ips[0]'],
    [{ allowed_ips: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`) }, 'allowed_ips'],
    [{ allowed_models: [] }, 'allowed_models'],
    [{ allowed_models: ['gpt-5'] }, 'allowed_models[0]'],
    [{ allowed_models: ['openai/gpt-5', 'openai/'] }, 'allowed_models[1]'],
    [{ allowed_models: Array.from({ length: 501 }, (_, i) => `demo/m${i}`) }, 'allowed_models'],
    [{ identity_injection: 'true' }, 'identity_injection'],
    [{ expires_at: '2030-01-31' }, 'expires_at'],
    [{ expires_at: '2030-01-31T00:00:00' }, 'expires_at'],
    [{ expires_at: '2030-13-01T00:00:00Z' }, 'expires_at'],
    [{ expires_at: '2030-02-31T00:00:00Z' }, 'expires_at'],
    [{ expires_at: 1893456000000 }, 'expires_at'],
    [{ active: 1 }, 'active'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ colour: 'red' }, 'colour'],
  ])('rejects %j naming `%s`', (input, field) => {
    const error = rejection(input);
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain(`\`${field}\``);
  });
});
