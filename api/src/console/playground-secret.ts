import { createHmac } from 'node:crypto';
import {
  API_KEY_PREFIX,
  API_KEY_RANDOM_LENGTH,
  type GeneratedApiKey,
  hashApiKey,
  lastFour,
} from '../../../shared/src/accounts/api-key-format.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = BigInt(ALPHABET.length);

/**
 * The secret of a session's playground key, derived from the session's own token (which only the
 * browser's HttpOnly cookie and the request carry; Redis keeps its digest) and a generation number:
 * an HMAC-SHA256 written as the 43 base62 characters of an ordinary key (62^43 > 2^256). So the
 * console can call `/v1` with the key on the holder's behalf without the secret being stored
 * anywhere, nor ever sent to the page; a new generation is a new key (the previous one was deleted).
 */
export function playgroundSecret(sessionToken: string, generation: number): GeneratedApiKey {
  const digest = createHmac('sha256', sessionToken).update(`console-playground-key:${generation}`).digest();
  let value = BigInt(`0x${digest.toString('hex')}`);
  let body = '';
  for (let i = 0; i < API_KEY_RANDOM_LENGTH; i++) {
    body = `${ALPHABET[Number(value % BASE)]}${body}`;
    value /= BASE;
  }
  const key = `${API_KEY_PREFIX}${body}`;
  return { key, hash: hashApiKey(key), last4: lastFour(key) };
}
