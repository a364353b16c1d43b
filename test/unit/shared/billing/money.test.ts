import { describe, expect, it } from 'vitest';
import {
  hasAtMostSixDecimals,
  irtToMicros,
  MICROS_PER_IRT,
  microsToIrt,
  priceMicros,
} from '../../../../shared/src/billing/money.ts';

describe('irtToMicros', () => {
  it('converts decimal text exactly', () => {
    expect(irtToMicros('12.5')).toBe(12_500_000n);
    expect(irtToMicros('0.000001')).toBe(1n);
    expect(irtToMicros('999999999999.999999')).toBe(999_999_999_999_999_999n);
    expect(irtToMicros('1000000000000')).toBe(1_000_000_000_000_000_000n);
    expect(irtToMicros('-2.5')).toBe(-2_500_000n);
    expect(irtToMicros('0')).toBe(0n);
  });

  it('accepts JSON exponents and trailing zeros when the value has at most 6 decimals', () => {
    expect(irtToMicros('1e3')).toBe(1_000_000_000n);
    expect(irtToMicros('1.5E-5')).toBe(15n);
    expect(irtToMicros('2.5e-5')).toBe(25n);
    expect(irtToMicros('1.1000000')).toBe(1_100_000n);
  });

  it('refuses more than 6 decimals and anything that is not a decimal', () => {
    expect(() => irtToMicros('0.1234567')).toThrow(RangeError);
    expect(() => irtToMicros('1e-7')).toThrow(RangeError);
    for (const bad of ['', 'abc', '1,5', '0x10', '1.', '.5', 'NaN', 'Infinity', '1 2']) {
      expect(() => irtToMicros(bad), bad).toThrow(RangeError);
    }
    expect(() => irtToMicros(Number.NaN)).toThrow(RangeError);
  });

  it('reads a number by its shortest form, which is the decimal its author wrote', () => {
    expect(irtToMicros(0.1)).toBe(100_000n);
    expect(irtToMicros(12.345678)).toBe(12_345_678n);
    expect(hasAtMostSixDecimals(12.345678)).toBe(true);
    expect(hasAtMostSixDecimals(1.1234567)).toBe(false);
    expect(hasAtMostSixDecimals('1e-6')).toBe(true);
  });
});

describe('microsToIrt', () => {
  it('gives the Toman number for JSON, sign included', () => {
    expect(microsToIrt(12_500_000n)).toBe(12.5);
    expect(microsToIrt(-1n)).toBe(-0.000001);
    expect(microsToIrt(0n)).toBe(0);
    expect(microsToIrt(123_456_789n)).toBe(123.456789);
  });

  it('does not drift where floats do (0.1 + 0.2)', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(microsToIrt(irtToMicros('0.1') + irtToMicros('0.2'))).toBe(0.3);
    expect(irtToMicros('0.1') + irtToMicros('0.2')).toBe(irtToMicros('0.3'));
  });

  it('sums a million small charges exactly', () => {
    let floatTotal = 0;
    let micros = 0n;
    const charge = priceMicros([{ quantity: 1, unitPriceIrt: 0.1 }]);
    for (let i = 0; i < 1_000_000; i++) {
      floatTotal += 0.1;
      micros += charge;
    }
    expect(floatTotal).not.toBe(100_000);
    expect(micros).toBe(100_000n * MICROS_PER_IRT);
    expect(microsToIrt(micros)).toBe(100_000);
    let smallest = 0n;
    for (let i = 0; i < 1_000_000; i++) smallest += irtToMicros('0.000001');
    expect(smallest).toBe(MICROS_PER_IRT);
  });
});

describe('priceMicros', () => {
  it('prices the same numbers the same way every time (parsed prices are remembered), integers exactly', () => {
    const line = { quantity: 1_234_567, unitPriceIrt: 0.15, perUnits: 1_000_000 };
    const first = priceMicros([line]);
    expect(first).toBe(185_185n); // 1,234,567 × 0.15 / 1e6 IRT = 0.18518505 IRT
    for (let i = 0; i < 3; i++) expect(priceMicros([line])).toBe(first);
    // Beyond 2^53 a number is no safe integer: still its exact shortest form.
    expect(priceMicros([{ quantity: 2 ** 53 + 2, unitPriceIrt: 1, perUnits: 1_000_000 }])).toBe(
      9_007_199_254_740_994n,
    );
    expect(priceMicros([{ quantity: -0, unitPriceIrt: 0.1 }])).toBe(0n);
    expect(() => priceMicros([{ quantity: Number.NaN, unitPriceIrt: 0.1 }])).toThrow(RangeError);
  });

  it('prices tokens per million exactly', () => {
    // 1234 × 150 / 1M + 567 × 600 / 1M = 0.1851 + 0.3402 Toman
    const cost = priceMicros([
      { quantity: 1234, unitPriceIrt: 150, perUnits: 1_000_000 },
      { quantity: 567, unitPriceIrt: 600, perUnits: 1_000_000 },
    ]);
    expect(cost).toBe(525_300n);
  });

  it('rounds half up once per request, not per line', () => {
    expect(priceMicros([{ quantity: 1, unitPriceIrt: '0.0000005' }])).toBe(1n);
    expect(priceMicros([{ quantity: 1, unitPriceIrt: '0.0000004999' }])).toBe(0n);
    const line = { quantity: 1, unitPriceIrt: '0.0000004' };
    // Rounded per line, each 0.4 µIRT would be 0; the request's 0.8 µIRT rounds to 1.
    expect(priceMicros([line, line])).toBe(1n);
  });

  it('handles fractional quantities (seconds of audio) and per-thousand units', () => {
    expect(priceMicros([{ quantity: 12.345, unitPriceIrt: 60 }])).toBe(740_700_000n);
    expect(priceMicros([{ quantity: 1500, unitPriceIrt: 2.5, perUnits: 1000 }])).toBe(3_750_000n);
    expect(priceMicros([{ quantity: 10n ** 9n, unitPriceIrt: '0.000001', perUnits: 1_000_000 }])).toBe(
      1_000n,
    );
    expect(priceMicros([])).toBe(0n);
  });

  it('refuses negative quantities or prices and empty units', () => {
    expect(() => priceMicros([{ quantity: -1, unitPriceIrt: 1 }])).toThrow(RangeError);
    expect(() => priceMicros([{ quantity: 1, unitPriceIrt: -1 }])).toThrow(RangeError);
    expect(() => priceMicros([{ quantity: 1, unitPriceIrt: 1, perUnits: 0 }])).toThrow(RangeError);
  });
});
