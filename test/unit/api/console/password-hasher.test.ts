import { describe, expect, it } from 'vitest';
import { createScryptHasher, SCRYPT_COST } from '../../../../api/src/console/password-hasher.ts';

// A cheap cost keeps the unit test fast; the format and the checks are the same.
const hasher = createScryptHasher({ N: 2 ** 10, r: 8, p: 1 });

describe('scrypt password hasher', () => {
  it('stores the cost, a 16-byte salt and the key; verifies the password and nothing else', async () => {
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hasher.verify('correct horse battery', stored)).toBe(true);
    expect(await hasher.verify('correct horse batterY', stored)).toBe(false);
    expect(await hasher.verify('', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hasher.hash('same password')).not.toBe(await hasher.hash('same password'));
  });

  it('verifies a hash made with another cost (the cost travels with it)', async () => {
    const stronger = createScryptHasher({ N: 2 ** 11, r: 8, p: 1 });
    expect(await hasher.verify('pass phrase', await stronger.hash('pass phrase'))).toBe(true);
  });

  it('treats composed and decomposed Unicode as one password', async () => {
    const stored = await hasher.hash('caf\u00e9 au lait');
    expect(await hasher.verify('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('answers false, never throws, for a stored value it did not make', async () => {
    for (const stored of [
      '',
      'plain',
      'scrypt$1024$8$1$abc',
      'bcrypt$x$y$z$s$k',
      'scrypt$0$8$1$c2FsdA$a2V5',
      'scrypt$1099511627776$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5',
    ]) {
      expect(await hasher.verify('anything', stored), stored).toBe(false);
    }
  });

  it('defaults to the documented cost (N=2^15, r=8, p=1)', async () => {
    expect(SCRYPT_COST).toEqual({ N: 32768, r: 8, p: 1 });
    expect(await createScryptHasher().hash('x'.repeat(10))).toMatch(/^scrypt\$32768\$8\$1\$/);
  });
});
