/**
 * Money is an integer number of micro-Toman (µIRT, 10⁻⁶ IRT) held in a bigint. Decimal text is
 * converted exactly at the edges; a JS number only leaves this module for JSON output.
 */

/** µIRT in one Toman. */
export const MICROS_PER_IRT = 1_000_000n;

const IRT_DECIMALS = 6;
// JSON number syntax (what a client or the catalogue writes), sign allowed.
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** An exact decimal: `digits × 10^-scale` (scale may be negative for large exponents). */
interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** Parses decimal text (JSON number syntax, exponent allowed) without any rounding. */
function parseDecimal(text: string): Decimal {
  const match = DECIMAL.exec(text.trim());
  if (match === null) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
  const [, sign, whole = '0', fraction = '', exponent = '0'] = match;
  const digits = BigInt(`${sign ?? ''}${whole}${fraction}`);
  return normalize({ digits, scale: fraction.length - Number(exponent) });
}

/** Drops trailing zeros, so `scale` is the real number of decimals. */
function normalize(value: Decimal): Decimal {
  let { digits, scale } = value;
  while (scale > 0 && digits !== 0n && digits % 10n === 0n) {
    digits /= 10n;
    scale -= 1;
  }
  return digits === 0n ? { digits: 0n, scale: 0 } : { digits, scale };
}

/** The exact decimal a number, bigint or decimal string stands for (a number by its shortest form). */
function toDecimal(value: number | bigint | string): Decimal {
  if (typeof value === 'bigint') return { digits: value, scale: 0 };
  if (typeof value === 'number') {
    // Token counts: the common case of every priced request, exact as they are.
    if (Number.isSafeInteger(value)) return { digits: BigInt(value), scale: 0 };
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    // Unit prices from the catalogue: a few hundred distinct numbers, parsed once each.
    const known = parsedPrices.get(value);
    if (known !== undefined) return known;
    // The shortest round-trip form is what the author of the number wrote (0.1 stays 0.1).
    const parsed = parseDecimal(String(value));
    if (parsedPrices.size >= PARSED_PRICES_MAX) parsedPrices.clear();
    parsedPrices.set(value, parsed);
    return parsed;
  }
  return parseDecimal(value);
}

/** Decimals of non-integer numbers already parsed (bounded: cleared when full). */
const parsedPrices = new Map<number, Decimal>();
const PARSED_PRICES_MAX = 4_096;

/** Exact Toman text (`'12.5'`, `'1e3'`) to µIRT; more than 6 decimals is a RangeError. */
export function irtToMicros(text: string | number): bigint {
  const { digits, scale } = toDecimal(text);
  if (scale > IRT_DECIMALS) throw new RangeError(`at most ${IRT_DECIMALS} decimals: ${text}`);
  return digits * 10n ** BigInt(IRT_DECIMALS - scale);
}

/** True when the text or number is a Toman amount with at most 6 decimals. */
export function hasAtMostSixDecimals(value: string | number): boolean {
  try {
    irtToMicros(value);
    return true;
  } catch {
    return false;
  }
}

/** µIRT to a Toman number for JSON output (the nearest double; never fed back into money). */
export function microsToIrt(micros: bigint): number {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS_PER_IRT;
  const fraction = (abs % MICROS_PER_IRT).toString().padStart(IRT_DECIMALS, '0');
  return Number(`${negative ? '-' : ''}${whole}.${fraction}`);
}

/** One term of a price: `quantity × unitPriceIrt / perUnits` (e.g. tokens × price per 1M tokens). */
export interface PriceLine {
  readonly quantity: number | bigint | string;
  readonly unitPriceIrt: number | string;
  /** Size of the priced unit: 1_000_000 for `1M_tokens`, 1_000 for `1K_chars`; default 1. */
  readonly perUnits?: number | bigint;
}

/**
 * The exact cost of a request in µIRT: the sum of its lines computed as a fraction, rounded half up
 * once at the end, so no per-line rounding or float drift accumulates.
 */
export function priceMicros(lines: readonly PriceLine[]): bigint {
  let numerator = 0n;
  let denominator = 1n;
  for (const line of lines) {
    const quantity = toDecimal(line.quantity);
    const price = toDecimal(line.unitPriceIrt);
    const per = BigInt(line.perUnits ?? 1);
    if (quantity.digits < 0n || price.digits < 0n || per <= 0n) {
      throw new RangeError('price lines need non-negative quantities and prices and a positive unit size');
    }
    const [lineNum, lineDen] = fraction(
      quantity.digits * price.digits * MICROS_PER_IRT,
      quantity.scale + price.scale,
    );
    numerator = numerator * lineDen * per + lineNum * denominator;
    denominator = denominator * lineDen * per;
  }
  // Half up: floor((2n + d) / 2d) for a non-negative fraction n/d.
  return (2n * numerator + denominator) / (2n * denominator);
}

/** `digits × 10^-scale` as a numerator/denominator pair of bigints. */
function fraction(digits: bigint, scale: number): [bigint, bigint] {
  return scale >= 0 ? [digits, 10n ** BigInt(scale)] : [digits * 10n ** BigInt(-scale), 1n];
}
