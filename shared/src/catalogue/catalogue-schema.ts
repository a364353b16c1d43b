import { z } from 'zod';
import { PROVIDER_IDS } from '../providers/provider-ids.ts';

/** Model types of the spec's Model resource. */
export const MODEL_TYPES = ['chat', 'embedding', 'image', 'tts', 'stt', 'video', 'sound'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

/** Pricing units of the spec's Pricing resource. */
export const PRICING_UNITS = ['1M_tokens', '1K_chars', 'minute', 'second', 'image'] as const;
export type PricingUnit = (typeof PRICING_UNITS)[number];

/** Capability tags a catalogue entry may carry; anything else is a typo and is rejected. */
export const CAPABILITIES = [
  'vision',
  'tools',
  'reasoning',
  'web_search',
  'file_input',
  'flagship',
  'json_schema',
  'streaming',
  'audio_input',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** The one pricing unit each model type is billed in; usage metering relies on this pairing. */
export const UNIT_BY_TYPE: Readonly<Record<ModelType, PricingUnit>> = {
  chat: '1M_tokens',
  embedding: '1M_tokens',
  image: 'image',
  tts: '1K_chars',
  stt: 'minute',
  video: 'second',
  sound: 'second',
};

// `<provider>/<model_name>`: no empty segment, no whitespace; the name part may contain slashes.
const MODEL_ID_PATTERN = /^[a-z0-9-]+(\/[A-Za-z0-9._:-]+)+$/;
// Aliases are short friendly names; a slash would make them look like (and compete with) model ids.
const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

const nonEmptyString = z.string().trim().min(1, 'must not be empty');
const price = z.number().min(0, 'must not be negative');
const tokenCount = z
  .number({ error: 'must be a whole number or null' })
  .int('must be a whole number or null')
  .positive('must be positive')
  .nullable();

function modelIdSchema(known: readonly string[]) {
  return z.string().superRefine((id, ctx) => {
    if (!MODEL_ID_PATTERN.test(id)) {
      ctx.addIssue({ code: 'custom', message: `"${id}" must have the form <provider>/<model_name>` });
      return;
    }
    const provider = id.slice(0, id.indexOf('/'));
    if (!known.includes(provider)) {
      ctx.addIssue({
        code: 'custom',
        message: `provider "${provider}" is not a known provider (${known.join(', ')})`,
      });
    }
  });
}

/**
 * The provider's higher rates for a long prompt (Gemini 2.5 Pro above 200k input tokens, Grok 4
 * above 128k): they replace `input`, `output` and `cached_input` for a request whose prompt has
 * more than `above_input_tokens` tokens.
 */
const longContextSchema = z.strictObject({
  above_input_tokens: z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .positive('must be positive'),
  input: price,
  output: price,
  cached_input: price.nullable().optional(),
});

const listPriceSchema = z.strictObject({
  unit: z.enum(PRICING_UNITS, { error: oneOf(PRICING_UNITS) }),
  input: price,
  output: price.nullable().optional(),
  cached_input: price.nullable().optional(),
  // Prompt-cache writes per 1M tokens, by cache lifetime (Anthropic: 5 minutes, the default, or 1 hour).
  cache_write_5m: price.optional(),
  cache_write_1h: price.optional(),
  // A server-side web search fee per 1,000 searches, on top of the tokens.
  web_search_per_1k: price.optional(),
  long_context: longContextSchema.optional(),
});

/** Price fields only token-priced models may carry (they count tokens or searches of a chat call). */
export const TOKEN_ONLY_PRICE_FIELDS = ['cache_write_5m', 'cache_write_1h', 'web_search_per_1k'] as const;

/** The name of a request parameter as it appears at the top level of a request body. */
const PARAM_NAME = /^[a-z][a-z0-9_]*$/;
const paramName = z.string().regex(PARAM_NAME, 'must be a request parameter name (snake_case)');
/** The one value a fixed parameter accepts: its default, a JSON scalar. */
const paramValue = z.union([z.number(), z.boolean(), z.string(), z.null()], {
  error: 'must be a number, true or false, a string or null',
});

function routeSchema(known: readonly string[]) {
  return z.strictObject({
    provider: z.string().refine((p) => known.includes(p), `must be a known provider (${known.join(', ')})`),
    native_id: nonEmptyString,
  });
}

/**
 * One model as written in models.json; per-entry rules included, cross-entry rules are separate.
 * `extraProviders` are the OpenAI-compatible upstreams declared in configuration.
 */
export function modelEntrySchemaFor(extraProviders: readonly string[] = []) {
  return modelEntryBaseSchema([...PROVIDER_IDS, ...extraProviders]).superRefine((entry, ctx) => {
    checkUnitAndOutput(entry, ctx);
    checkParamRules(entry, ctx);
    checkNativePrices(entry, ctx);
  });
}

/** The fields of an entry and their own rules, before the rules that relate fields. */
function modelEntryBaseSchema(known: readonly string[]) {
  return z.strictObject({
    id: modelIdSchema(known),
    name: nonEmptyString,
    type: z.enum(MODEL_TYPES, { error: oneOf(MODEL_TYPES) }),
    owned_by: nonEmptyString,
    created: z.number().int('must be a whole number').positive('must be positive'),
    context_window: tokenCount,
    max_output_tokens: tokenCount,
    capabilities: z.array(z.enum(CAPABILITIES, { error: oneOf(CAPABILITIES) })),
    native_id: nonEmptyString,
    list_price_usd: listPriceSchema,
    routes: z.array(routeSchema(known)).min(1, 'must list at least one route'),
    aliases: z.array(z.string().regex(ALIAS_PATTERN, 'must be a short name without spaces or slashes')),
    enabled: z.boolean().optional(),
    // Request parameters the model refuses whatever their value.
    unsupported_params: z.array(paramName).optional(),
    // Request parameters the model takes only at one value (its default).
    fixed_params: z.record(paramName, paramValue).optional(),
    // Of the two above, those the model does take while its reasoning effort is `none` (its default).
    reasoning_none_allows: z.array(paramName).optional(),
  });
}

type EntryShape = z.infer<ReturnType<typeof modelEntryBaseSchema>>;
type RefineContext = z.core.$RefinementCtx<EntryShape>;

/** Each type is billed in one unit (usage metering relies on it); chat needs an output price. */
function checkUnitAndOutput(entry: EntryShape, ctx: RefineContext): void {
  const expectedUnit = UNIT_BY_TYPE[entry.type];
  if (entry.list_price_usd.unit !== expectedUnit) {
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'unit'],
      message: `must be ${expectedUnit} for type ${entry.type}`,
    });
  }
  if (entry.type === 'chat' && typeof entry.list_price_usd.output !== 'number') {
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'output'],
      message: 'is required for type chat',
    });
  }
}

/** Parameter lists name each parameter once and in one rule; `reasoning_none_allows` lifts listed ones only. */
function checkParamRules(entry: EntryShape, ctx: RefineContext): void {
  const unsupported = entry.unsupported_params ?? [];
  const fixed = Object.keys(entry.fixed_params ?? {});
  unsupported.forEach((name, i) => {
    if (unsupported.indexOf(name) !== i)
      ctx.addIssue({ code: 'custom', path: ['unsupported_params', i], message: `names ${name} twice` });
    if (fixed.includes(name))
      ctx.addIssue({
        code: 'custom',
        path: ['unsupported_params', i],
        message: `${name} is also in fixed_params: a parameter is either refused or fixed`,
      });
  });
  const lifted = entry.reasoning_none_allows ?? [];
  lifted.forEach((name, i) => {
    if (lifted.indexOf(name) !== i)
      ctx.addIssue({ code: 'custom', path: ['reasoning_none_allows', i], message: `names ${name} twice` });
    if (!unsupported.includes(name) && !fixed.includes(name))
      ctx.addIssue({
        code: 'custom',
        path: ['reasoning_none_allows', i],
        message: `${name} is neither in unsupported_params nor in fixed_params`,
      });
  });
}

/**
 * Cache-write and web-search prices belong to token-priced chat models (web search: with that
 * capability); so do long-context rates, whose threshold must be reachable.
 */
function checkNativePrices(entry: EntryShape, ctx: RefineContext): void {
  const prices = entry.list_price_usd;
  for (const field of TOKEN_ONLY_PRICE_FIELDS) {
    if (prices[field] === undefined) continue;
    if (entry.type !== 'chat')
      ctx.addIssue({ code: 'custom', path: ['list_price_usd', field], message: 'is only for type chat' });
  }
  const tier = prices.long_context;
  if (tier !== undefined && entry.type !== 'chat')
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'long_context'],
      message: 'is only for type chat',
    });
  if (tier !== undefined && entry.context_window !== null && tier.above_input_tokens >= entry.context_window)
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'long_context', 'above_input_tokens'],
      message: `must be below the context window (${entry.context_window}): no prompt could reach it`,
    });
  if (tier !== undefined && (tier.cached_input == null) !== (prices.cached_input == null))
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'long_context', 'cached_input'],
      message:
        'is set exactly when list_price_usd.cached_input is: cached input is priced in both tiers or in neither',
    });
  if (prices.web_search_per_1k !== undefined && !entry.capabilities.includes('web_search')) {
    ctx.addIssue({
      code: 'custom',
      path: ['list_price_usd', 'web_search_per_1k'],
      message: 'needs the web_search capability',
    });
  }
}

/** The schema of an entry with the built-in providers only. */
export const modelEntrySchema = modelEntrySchemaFor();

export type ModelEntry = z.infer<typeof modelEntrySchema>;

/** The only value a fixed request parameter accepts (its default). */
export type ParamValue = number | boolean | string | null;

/** Prices of the native API layer, per 1M tokens (cache writes) or per 1,000 searches. */
export interface NativePriceFields {
  readonly cache_write_5m?: number;
  readonly cache_write_1h?: number;
  readonly web_search_per_1k?: number;
}

/**
 * What a loaded model carries beyond the fields `CatalogueModel` declares, read by the native API
 * layer (`shared/src/native/`). Each field is present only where the catalogue file sets it; prices
 * in `pricing` are in IRT, those in `list_price_usd` as written. A model built by other means
 * (tests, fixtures) has none of them, which the native layer reads as "no such price" and "no
 * parameter restriction".
 */
export interface NativeModelExtras {
  readonly pricing: NativePriceFields;
  readonly list_price_usd: NativePriceFields;
  readonly unsupported_params?: readonly string[];
  readonly fixed_params?: Readonly<Record<string, ParamValue>>;
  readonly reasoning_none_allows?: readonly string[];
}

export const exchangeRateSchema = z.strictObject({
  irt_per_usd: z.number({ error: 'must be a positive number' }).positive('must be a positive number'),
  as_of: z.iso.date({ error: 'must be a date written YYYY-MM-DD' }),
  note: z.string().optional(),
});

/**
 * The file's top level. `models` is only checked to be an array here: entries are validated one by
 * one so that every bad entry is reported with its index and id, not just the first.
 */
export const catalogueFileSchema = z.strictObject({
  version: z.literal(1, { error: 'must be 1' }),
  exchange_rate: exchangeRateSchema,
  models: z.array(z.unknown()).min(1, 'must list at least one model'),
});

/** A problem found by a cross-entry rule: the entry it belongs to and what is wrong there. */
export interface EntryProblem {
  readonly index: number;
  readonly message: string;
}

/**
 * What cross-entry rules look at, read leniently from a raw entry (a field of the wrong type is left
 * out), so that a duplicate is still reported when one of the two entries has other problems too.
 */
export interface EntryKeys {
  readonly index: number;
  readonly id: string | undefined;
  readonly nativeId: string | undefined;
  readonly aliases: readonly string[];
}

export function entryKeysOf(raw: unknown, index: number): EntryKeys {
  const record = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const aliases = Array.isArray(record.aliases) ? record.aliases : [];
  return {
    index,
    id: text(record.id),
    nativeId: text(record.native_id),
    aliases: aliases.filter((alias): alias is string => typeof alias === 'string'),
  };
}

/** How problems name an entry: `models[3] (openai/gpt-4o)`, or `models[3]` when it has no id. */
export function entryLabel(keys: EntryKeys): string {
  return keys.id === undefined ? `models[${keys.index}]` : `models[${keys.index}] (${keys.id})`;
}

/** Rules that span entries: unique ids, unique aliases, aliases that shadow ids or bare upstream ids. */
export function checkCrossEntryRules(entries: readonly EntryKeys[]): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const byId = new Map<string, EntryKeys>();
  const byNativeId = new Map<string, EntryKeys[]>();
  for (const at of entries) {
    if (at.id !== undefined) {
      const first = byId.get(at.id);
      if (first) problems.push({ index: at.index, message: `id duplicates ${entryLabel(first)}` });
      else byId.set(at.id, at);
    }
    if (at.nativeId !== undefined) byNativeId.set(at.nativeId, [...(byNativeId.get(at.nativeId) ?? []), at]);
  }
  const byAlias = new Map<string, EntryKeys>();
  for (const at of entries) {
    at.aliases.forEach((alias, i) => {
      const field = `aliases[${i}] "${alias}"`;
      const idOwner = byId.get(alias);
      const aliasOwner = byAlias.get(alias);
      if (idOwner)
        problems.push({ index: at.index, message: `${field} equals the id of ${entryLabel(idOwner)}` });
      if (aliasOwner) {
        const owner = aliasOwner.index === at.index ? 'this model' : entryLabel(aliasOwner);
        problems.push({ index: at.index, message: `${field} is already an alias of ${owner}` });
      } else {
        byAlias.set(alias, at);
      }
      // resolve() tries aliases before bare upstream ids, so an alias naming another model's
      // upstream id would silently redirect requests meant for that model.
      for (const other of byNativeId.get(alias) ?? []) {
        if (other.index === at.index) continue;
        problems.push({ index: at.index, message: `${field} shadows the native_id of ${entryLabel(other)}` });
      }
    });
  }
  return problems;
}
