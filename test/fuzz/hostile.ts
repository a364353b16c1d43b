/**
 * Hostile JSON values for the fuzz suite: wrong types, huge and negative numbers, NaN-like strings,
 * deep nesting (up to 10,000 levels), very long strings, unicode, nulls, and object mutations
 * (extra fields, missing fields, prototype keys). A value that JSON.stringify cannot express
 * (`1e400`, `-0`, a 10,000-deep array, a duplicate key, invalid JSON tokens) is a `RawJson` holding
 * its exact text; `toJsonText` writes a value tree with those fragments in place.
 */
import fc from 'fast-check';

/** A JSON fragment written as is (it may be invalid JSON on purpose). */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export const raw = (text: string): RawJson => new RawJson(text);

/** Serializes a value tree, writing `RawJson` fragments verbatim (iterative: no stack limit). */
export function toJsonText(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  const CLOSE = Symbol('close');
  type Close = { [CLOSE]: string };
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof RawJson) out.push(item.text);
    else if (typeof item === 'object' && item !== null && CLOSE in item) out.push((item as Close)[CLOSE]);
    else if (Array.isArray(item)) {
      out.push('[');
      stack.push({ [CLOSE]: ']' });
      for (let i = item.length - 1; i >= 0; i -= 1) {
        stack.push(item[i]);
        if (i > 0) stack.push(raw(','));
      }
    } else if (typeof item === 'object' && item !== null) {
      out.push('{');
      stack.push({ [CLOSE]: '}' });
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, child] = entries[i] as [string, unknown];
        stack.push(child);
        stack.push(raw(`${JSON.stringify(key)}:`));
        if (i > 0) stack.push(raw(','));
      }
    } else if (item === undefined) out.push('null');
    else out.push(JSON.stringify(item));
  }
  return out.join('');
}

/** A nesting `depth` levels deep, of arrays or objects, as exact text. */
export function deepNesting(depth: number, kind: 'array' | 'object'): RawJson {
  if (kind === 'array') return raw(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
  return raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

export const depthArb = fc.constantFrom(2, 10, 63, 64, 65, 100, 1_000, 10_000);
export const deepArb: fc.Arbitrary<RawJson> = fc
  .tuple(depthArb, fc.constantFrom<'array' | 'object'>('array', 'object'))
  .map(([depth, kind]) => deepNesting(depth, kind));

/** Lengths around the service's limits and far above them. */
export const longLengthArb = fc.constantFrom(1_000, 4_097, 10_001, 32_000, 32_001, 100_000, 1_000_000);
export const longStringArb: fc.Arbitrary<string> = fc
  .tuple(longLengthArb, fc.constantFrom('x', 'é', '𝄞', '\u0000', ' ', '"', '\\'))
  .map(([length, unit]) => unit.repeat(Math.max(1, Math.floor(length / unit.length))));

export const unicodeStringArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u202e\u0645\u062f\u0644',
    '\ud800',
    '\udfff',
    '\u0000',
    '\ufeff',
    'مدل/چت',
    '🤖'.repeat(50),
    'a\r\nb',
    '<script>alert(1)</script>',
    "'; DROP TABLE keys; --",
    '{"$gt":""}',
    '../../etc/passwd',
    '%00',
    '%2F',
  ),
);

export const nanLikeArb: fc.Arbitrary<string> = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '-1e999',
  '0x10',
  ' 12 ',
  '1_000',
  '1,5',
  '',
  'null',
  'true',
  '[]',
  '{}',
);

/** Numbers JSON can carry, and some it cannot (kept as exact text). */
export const hostileNumberArb: fc.Arbitrary<number | RawJson> = fc.oneof(
  fc.constantFrom<number | RawJson>(
    0,
    -1,
    -0.5,
    0.1,
    1.5,
    2.0000001,
    -2147483649,
    4294967296,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    -Number.MAX_SAFE_INTEGER - 2,
    1e21,
    1e308,
    -1e308,
    5e-324,
    raw('-0'),
    raw('1e400'),
    raw('-1e400'),
    raw('123456789012345678901234567890'),
    raw('1.0000000000000000000000001'),
    raw('1E2'),
    raw('0.1e-400'),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Fragments that make the whole body invalid JSON (a 400 for the whole request). */
export const invalidJsonFragmentArb: fc.Arbitrary<RawJson> = fc.constantFrom(
  raw('NaN'),
  raw('Infinity'),
  raw('undefined'),
  raw('True'),
  raw("'single'"),
  raw('"unterminated'),
  raw('[1,]'),
  raw('{"a":1,}'),
  raw('"\u0001"'),
  raw('0123'),
  raw('"\\x41"'),
  raw('"\\ud83d"'),
);

/** Any hostile value a field may get instead of its proper one. */
export const hostileValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 3, arbitrary: fc.boolean() },
  { weight: 4, arbitrary: hostileNumberArb },
  { weight: 4, arbitrary: nanLikeArb },
  { weight: 3, arbitrary: unicodeStringArb },
  { weight: 2, arbitrary: longStringArb },
  { weight: 2, arbitrary: deepArb },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 5 }),
  },
  {
    weight: 2,
    arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
  },
  { weight: 1, arbitrary: fc.constant([]) },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: invalidJsonFragmentArb },
);

/** Keys a hostile client adds: unknown ones, prototype keys, huge ones. */
export const extraKeyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', '$where'),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('x'.repeat(10_000)),
);

/** One change to an object that otherwise has the valid shape. */
type Mutation =
  | { readonly op: 'drop'; readonly at: number }
  | { readonly op: 'replace'; readonly at: number; readonly value: unknown }
  | { readonly op: 'add'; readonly key: string; readonly value: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: hostileValueArb }),
  },
  fc.record({ op: fc.constant('add' as const), key: extraKeyArb, value: hostileValueArb }),
);

function applyMutations(
  base: Record<string, unknown>,
  mutations: readonly Mutation[],
): Record<string, unknown> {
  // A null-prototype object, so `__proto__` is an own key written into the JSON text.
  const out: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, base);
  for (const m of mutations) {
    const keys = Object.keys(out);
    if (m.op === 'add') out[m.key] = m.value;
    else if (keys.length > 0) {
      const key = keys[m.at % keys.length] as string;
      if (m.op === 'drop') delete out[key];
      else out[key] = m.value;
    }
  }
  return out;
}

/**
 * A body of an endpoint: mostly its valid shape (`valid`), often with a few hostile mutations, now
 * and then an entirely different top-level value (an array, a string, a deep nesting, null).
 */
export function hostileBody(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, fc.array(mutationArb, { minLength: 1, maxLength: 4 }))
        .map(([base, mutations]) => applyMutations(base, mutations)),
    },
    { weight: 1, arbitrary: hostileValueArb },
  );
}
