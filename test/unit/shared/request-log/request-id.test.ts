import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  formatRequestId,
  parseRequestId,
  requestIdMs,
} from '../../../../shared/src/request-log/request-record.ts';

describe('request ids', () => {
  it('parse back into the millisecond and the random bytes they were made of', () => {
    for (let i = 0; i < 2_000; i += 1) {
      const ms = Math.floor(Math.random() * 36 ** 9);
      const random = randomBytes(12);
      const id = formatRequestId(ms, random);
      const parsed = parseRequestId(id);
      expect(parsed?.ms).toBe(ms);
      expect(parsed?.random.equals(random)).toBe(true);
      expect(requestIdMs(id)).toBe(ms);
    }
  });

  it('parse the extremes of the time part and of every byte', () => {
    expect(parseRequestId(formatRequestId(0, Buffer.alloc(12)))).toEqual({ ms: 0, random: Buffer.alloc(12) });
    const top = formatRequestId(36 ** 9 - 1, Buffer.alloc(12, 0xff));
    expect(top).toBe('req_zzzzzzzzz________________');
    expect(parseRequestId(top)).toEqual({ ms: 36 ** 9 - 1, random: Buffer.alloc(12, 0xff) });
  });

  it.each([
    ['empty', ''],
    ['no prefix', 'abc_mgs1x2k0aAbCdEfGhIjKlMnOp'],
    ['one character short', 'req_mgs1x2k0aAbCdEfGhIjKlMnO'],
    ['one character long', 'req_mgs1x2k0aAbCdEfGhIjKlMnOpq'],
    ['an upper-case time digit', 'req_MGS1X2K0AAbCdEfGhIjKlMnOp'],
    ['a time digit outside base 36', 'req_mgs1x-k0aAbCdEfGhIjKlMnOp'],
    ['base64 instead of base64url', 'req_mgs1x2k0aAbCdEfGhIjKlMn+p'],
    ['padding', 'req_mgs1x2k0aAbCdEfGhIjKlMn=p'],
    ['a character past ASCII', 'req_mgs1x2k0aAbCdEfGhIjKlMnép'],
  ])('refuse %s', (_, id) => {
    expect(parseRequestId(id)).toBeNull();
  });

  it('refuse what is not text', () => {
    expect(parseRequestId(42 as unknown as string)).toBeNull();
  });
});
