import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  type Catalogue,
  type CatalogueModel,
  createCatalogue,
  type ExchangeRate,
  type LongContextPricing,
} from './catalogue.ts';
import {
  catalogueFileSchema,
  checkCrossEntryRules,
  type EntryKeys,
  type EntryProblem,
  entryKeysOf,
  entryLabel,
  type ModelEntry,
  modelEntrySchemaFor,
  type NativeModelExtras,
  type NativePriceFields,
  TOKEN_ONLY_PRICE_FIELDS,
} from './catalogue-schema.ts';

const DEFAULT_PATH = new URL('./models.json', import.meta.url);

/** Thrown when the catalogue cannot be read or is invalid; `problems` lists every problem found. */
export class CatalogueError extends Error {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`Invalid model catalogue ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CatalogueError';
    this.problems = problems;
  }
}

/** Reads, validates and converts the catalogue file (default: the models.json beside this module). */
export interface CatalogueOptions {
  /** OpenAI-compatible upstreams declared in configuration, which routes may name too. */
  readonly extraProviders?: readonly string[];
}

export function loadCatalogue(path?: string | URL, options: CatalogueOptions = {}): Catalogue {
  const file =
    path === undefined ? fileURLToPath(DEFAULT_PATH) : path instanceof URL ? fileURLToPath(path) : path;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogueError(file, [`cannot read ${file}: ${(err as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CatalogueError(file, [`${file} is not valid JSON: ${(err as Error).message}`]);
  }
  return parseCatalogue(raw, file, options);
}

/** Validates an already parsed catalogue document; same rules as loadCatalogue, no file IO. */
export function parseCatalogue(raw: unknown, source = '(inline)', options: CatalogueOptions = {}): Catalogue {
  const top = catalogueFileSchema.safeParse(raw, { reportInput: true });
  const problems = top.success ? [] : top.error.issues.flatMap((issue) => formatIssue(issue, 'catalogue'));
  const rawModels: unknown[] = isRecord(raw) && Array.isArray(raw.models) ? raw.models : [];
  const { entries, problems: entryProblems } = parseEntries(
    rawModels,
    modelEntrySchemaFor(options.extraProviders),
  );
  problems.push(...entryProblems);
  if (!top.success || problems.length > 0) throw new CatalogueError(source, problems);

  const rate = top.data.exchange_rate;
  const exchangeRate: ExchangeRate = { irtPerUsd: rate.irt_per_usd, asOf: rate.as_of, note: rate.note };
  return createCatalogue(
    entries.map((entry) => toCatalogueModel(entry, exchangeRate.irtPerUsd)),
    exchangeRate,
  );
}

/** Validates each entry on its own, then the rules across entries; problems come in file order. */
function parseEntries(
  rawModels: readonly unknown[],
  schema: ReturnType<typeof modelEntrySchemaFor>,
): { entries: ModelEntry[]; problems: string[] } {
  const keys: EntryKeys[] = rawModels.map((rawEntry, index) => entryKeysOf(rawEntry, index));
  const entries: ModelEntry[] = [];
  const found: EntryProblem[] = [];
  rawModels.forEach((rawEntry, index) => {
    const parsed = schema.safeParse(rawEntry, { reportInput: true });
    if (parsed.success) {
      entries.push(parsed.data);
      return;
    }
    for (const issue of parsed.error.issues) {
      for (const message of formatIssue(issue)) found.push({ index, message });
    }
  });
  found.push(...checkCrossEntryRules(keys));
  // A stable sort keeps each entry's problems together whichever rule found them.
  found.sort((a, b) => a.index - b.index);
  const problems = found.map(
    ({ index, message }) => `${entryLabel(keys[index] ?? entryKeysOf(undefined, index))}: ${message}`,
  );
  return { entries, problems };
}

/**
 * The validated entry as the catalogue serves it, prices converted to IRT. The native API layer's
 * fields (`NativeModelExtras`: cache-write and web-search prices, parameter rules) are added only
 * where the file sets them, so models without them keep exactly the shape `CatalogueModel` declares.
 */
function toCatalogueModel(entry: ModelEntry, irtPerUsd: number): CatalogueModel {
  const usd = entry.list_price_usd;
  const toIrt = (value: number | null | undefined) =>
    typeof value === 'number' ? usdToIrt(value, irtPerUsd) : null;
  const nativeUsd = nativePriceFields(usd, (value) => value);
  const nativeIrt = nativePriceFields(usd, (value) => usdToIrt(value, irtPerUsd));
  return Object.freeze({
    id: entry.id,
    name: entry.name,
    type: entry.type,
    owned_by: entry.owned_by,
    created: entry.created,
    context_window: entry.context_window,
    max_output_tokens: entry.max_output_tokens,
    capabilities: Object.freeze([...entry.capabilities]),
    native_id: entry.native_id,
    pricing: Object.freeze({
      currency: 'IRT' as const,
      unit: usd.unit,
      input: usdToIrt(usd.input, irtPerUsd),
      output: toIrt(usd.output),
      cached_input: toIrt(usd.cached_input),
      ...longContextOf(usd, (value) => usdToIrt(value, irtPerUsd)),
      ...nativeIrt,
    }),
    list_price_usd: Object.freeze({
      unit: usd.unit,
      input: usd.input,
      output: usd.output ?? null,
      cached_input: usd.cached_input ?? null,
      ...longContextOf(usd, (value) => value),
      ...nativeUsd,
    }),
    routes: Object.freeze(entry.routes.map((route) => Object.freeze({ ...route }))),
    aliases: Object.freeze([...entry.aliases]),
    enabled: entry.enabled ?? true,
    ...paramRules(entry),
  });
}

/** The entry's long-context rates, if it sets them, each price passed through `convert`. */
function longContextOf(
  usd: ModelEntry['list_price_usd'],
  convert: (usd: number) => number,
): { long_context?: LongContextPricing } {
  const tier = usd.long_context;
  if (tier === undefined) return {};
  return {
    long_context: Object.freeze({
      above_input_tokens: tier.above_input_tokens,
      input: convert(tier.input),
      output: convert(tier.output),
      cached_input: tier.cached_input == null ? null : convert(tier.cached_input),
    }),
  };
}

/** The native price fields the entry sets, each passed through `convert`. */
function nativePriceFields(usd: ModelEntry['list_price_usd'], convert: (usd: number) => number) {
  const out: { -readonly [K in keyof NativePriceFields]: number } = {};
  for (const field of TOKEN_ONLY_PRICE_FIELDS) {
    const value = usd[field];
    if (value !== undefined) out[field] = convert(value);
  }
  return out;
}

/** The parameter rules the entry sets (frozen copies). */
function paramRules(entry: ModelEntry): Omit<NativeModelExtras, 'pricing' | 'list_price_usd'> {
  return {
    ...(entry.unsupported_params && { unsupported_params: Object.freeze([...entry.unsupported_params]) }),
    ...(entry.fixed_params && { fixed_params: Object.freeze({ ...entry.fixed_params }) }),
    ...(entry.reasoning_none_allows && {
      reasoning_none_allows: Object.freeze([...entry.reasoning_none_allows]),
    }),
  };
}

/**
 * USD price x rate, rounded half up to 2 decimals in exact decimal arithmetic: 0.000075 x 105000 is
 * 7.875 and must become 7.88, where float arithmetic (Math.round or toFixed) gives 7.87.
 */
export function usdToIrt(usd: number, irtPerUsd: number): number {
  const a = toDecimal(usd);
  const b = toDecimal(irtPerUsd);
  const product = a.digits * b.digits;
  const scale = a.scale + b.scale;
  let cents: bigint;
  if (scale <= 2) {
    cents = product * 10n ** BigInt(2 - scale);
  } else {
    const divisor = 10n ** BigInt(scale - 2);
    cents = product / divisor;
    if ((product % divisor) * 2n >= divisor) cents += 1n;
  }
  return Number(`${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`);
}

/** A non-negative finite number as integer digits and a count of decimal places, from its shortest form. */
function toDecimal(value: number): { digits: bigint; scale: number } {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(value));
  if (!match) throw new RangeError(`cannot convert ${value} exactly`);
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(whole + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/** One readable problem per issue (one per unknown key), starting with the field path. */
function formatIssue(issue: z.core.$ZodIssue, root = ''): string[] {
  const at = (path: readonly PropertyKey[]) => {
    const field = formatPath(path) || root;
    return field ? `${field} ` : '';
  };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${at([...issue.path, key])}is not a known field`);
  }
  const missing =
    (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined;
  if (missing) return [`${at(issue.path)}is required`];
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    return [`${at(issue.path)}must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`];
  }
  return [`${at(issue.path)}${issue.message}`];
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
