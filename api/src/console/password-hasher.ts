import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** Hashes and checks console passwords; injected so tests can count the hashes a path performs. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** True when `password` is the one `stored` was made from; false for a malformed `stored`. */
  verify(password: string, stored: string): Promise<boolean>;
}

/** Bounds of a password: long enough to resist guessing, short enough that hashing it is cheap. */
export const PASSWORD_LIMITS = { minLength: 10, maxLength: 1024 } as const;

export interface ScryptCost {
  /** CPU and memory cost, a power of two. */
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** docs/console.md: N=2^15, r=8, p=1 (32 MiB and tens of milliseconds a hash), 16-byte salt. */
export const SCRYPT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX = 'scrypt';

/**
 * scrypt from `node:crypto` (run on libuv's thread pool, not the event loop). A hash is stored as
 * `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), so a later change of the cost still verifies the
 * passwords hashed before it.
 */
export function createScryptHasher(cost: ScryptCost = SCRYPT_COST): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(SALT_BYTES);
      const key = await derive(password, salt, cost);
      return [PREFIX, cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join(
        '$',
      );
    },

    async verify(password, stored) {
      const parsed = parse(stored);
      if (parsed === null) return false;
      const key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
      return timingSafeEqual(key, parsed.key);
    },
  };
}

function derive(password: string, salt: Buffer, cost: ScryptCost, length = KEY_BYTES): Promise<Buffer> {
  const options: ScryptOptions = {
    N: cost.N,
    r: cost.r,
    p: cost.p,
    maxmem: 2 * 128 * cost.N * cost.r + 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const [prefix, n, r, p, salt, key, extra] = stored.split('$');
  if (prefix !== PREFIX || extra !== undefined || salt === undefined || key === undefined) return null;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const valid = Object.values(cost).every((value) => Number.isSafeInteger(value) && value > 0);
  if (!valid || cost.N > 2 ** 20 || cost.r > 32 || cost.p > 16) return null;
  const keyBytes = Buffer.from(key, 'base64url');
  if (keyBytes.length < 16) return null;
  return { cost, salt: Buffer.from(salt, 'base64url'), key: keyBytes };
}
