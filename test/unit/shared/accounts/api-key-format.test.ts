import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, lastFour } from '../../../../shared/src/accounts/api-key-format.ts';

describe('generateApiKey', () => {
  it('makes hk- followed by 43 base62 characters, with its hash and last four', () => {
    const generated = generateApiKey();
    expect(generated.key).toMatch(/^hk-[0-9A-Za-z]{43}$/);
    expect(generated.hash).toBe(createHash('sha256').update(generated.key).digest('hex'));
    expect(generated.last4).toBe(generated.key.slice(-4));
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(keys.length);
    const characters = new Set(keys.flatMap((key) => [...key.slice(3)]));
    expect(characters.size).toBe(62);
  });
});

describe('hashApiKey / lastFour', () => {
  it('hash the full key as lower-case sha256 hex and keep the last four characters', () => {
    expect(hashApiKey('hk-abc')).toBe(createHash('sha256').update('hk-abc').digest('hex'));
    expect(hashApiKey('hk-abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(lastFour('hk-abcdefgh')).toBe('efgh');
  });
});
