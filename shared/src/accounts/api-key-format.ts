import { hash, randomBytes } from 'node:crypto';

/** Every API key of the service starts with this prefix (spec, Authentication). */
export const API_KEY_PREFIX = 'hk-';

/** Random characters after the prefix: 43 base62 characters carry 256 bits. */
export const API_KEY_RANDOM_LENGTH = 43;

// Base62 only: no `-`/`_` (which a reader confuses with the prefix) and nothing to URL-encode.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Bytes at or above 248 (= 4 × 62) are dropped so that every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/** A freshly generated key: the full value (shown once) and what is stored of it. */
export interface GeneratedApiKey {
  readonly key: string;
  readonly hash: string;
  readonly last4: string;
}

/** Generates `hk-` + 43 base62 characters from the OS's cryptographic random source. */
export function generateApiKey(): GeneratedApiKey {
  let body = '';
  while (body.length < API_KEY_RANDOM_LENGTH) {
    for (const byte of randomBytes(API_KEY_RANDOM_LENGTH * 2)) {
      if (byte < UNBIASED_LIMIT && body.length < API_KEY_RANDOM_LENGTH)
        body += ALPHABET[byte % ALPHABET.length];
    }
  }
  const key = `${API_KEY_PREFIX}${body}`;
  return { key, hash: hashApiKey(key), last4: lastFour(key) };
}

/** The stored form of a key: SHA-256 of the full key (prefix included), lower-case hex. */
export function hashApiKey(key: string): string {
  // The one-shot digest: no Hash object per request (each request's key is hashed to find it).
  return hash('sha256', key, 'hex');
}

/** The last four characters of a key, the only part shown after creation. */
export function lastFour(key: string): string {
  return key.slice(-4);
}
