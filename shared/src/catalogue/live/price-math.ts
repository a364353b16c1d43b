/**
 * Exact decimal arithmetic for catalogue prices: a list price in dollars times the exchange rate
 * and the markup, or an IRT price times an account's multiplier, rounded half up once at the end.
 * Float arithmetic would round 0.000075 × 105000 = 7.875 down to 7.87.
 */

interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** A finite number as digits and decimal places, from its shortest form (sign kept). */
function toDecimal(value: number): Decimal {
  const match = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(value));
  if (!match) throw new RangeError(`cannot convert ${value} exactly`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

function multiply(a: Decimal, b: Decimal): Decimal {
  return { digits: a.digits * b.digits, scale: a.scale + b.scale };
}

/** A non-negative decimal rounded half up to `decimals` places, as a number. */
function rounded(value: Decimal, decimals: number): number {
  let units: bigint;
  if (value.scale <= decimals) {
    units = value.digits * 10n ** BigInt(decimals - value.scale);
  } else {
    const divisor = 10n ** BigInt(value.scale - decimals);
    units = value.digits / divisor;
    if ((value.digits % divisor) * 2n >= divisor) units += 1n;
  }
  const unit = 10n ** BigInt(decimals);
  const whole = units / unit;
  if (decimals === 0) return Number(whole);
  return Number(`${whole}.${(units % unit).toString().padStart(decimals, '0')}`);
}

/** `(100 + percent) / 100` exactly: the factor of a markup in percent (percent ≥ −100). */
function percentFactor(percent: number): Decimal {
  const p = toDecimal(percent);
  return { digits: 100n * 10n ** BigInt(p.scale) + p.digits, scale: p.scale + 2 };
}

/** A list price in USD as IRT: × rate × (1 + markup %), rounded half up to 2 decimals. */
export function listPriceIrt(usd: number, irtPerUsd: number, markupPercent: number): number {
  const product = multiply(multiply(toDecimal(usd), toDecimal(irtPerUsd)), percentFactor(markupPercent));
  return rounded(product, 2);
}

/** An IRT unit price × an account's price multiplier, rounded half up to 6 decimals (µIRT). */
export function multipliedPrice(irt: number, multiplier: number): number {
  return rounded(multiply(toDecimal(irt), toDecimal(multiplier)), 6);
}
