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

const listPriceSchema = z.strictObject({
  unit: z.enum(PRICING_UNITS, { error: oneOf(PRICING_UNITS) }),
  input: price,
  output: price.nullable().optional(),
  cached_input: price.nullable().optional(),
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
  const known = [...PROVIDER_IDS, ...extraProviders];
  return z
    .strictObject({
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
    })
    .superRefine((entry, ctx) => {
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
    });
}

/** The schema of an entry with the built-in providers only. */
export const modelEntrySchema = modelEntrySchemaFor();

export type ModelEntry = z.infer<typeof modelEntrySchema>;

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
