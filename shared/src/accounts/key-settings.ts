import { hasAtMostSixDecimals, irtToMicros } from '../billing/money.ts';
import { errors } from '../errors/app-error.ts';
import { normalizeIpAddress } from './ip-address.ts';

/** Bounds of the per-key settings (spec, Authentication and Limits), each spelled once. */
export const KEY_SETTING_LIMITS = {
  rateLimitMin: 1,
  rateLimitMax: 3000,
  rateLimitDefault: 60,
  /** Toman; far above any real cap, low enough that the µIRT value stays a safe Int64. */
  monthlyCapMax: 1_000_000_000_000,
  allowedIpsMax: 50,
  allowedModelsMax: 500,
  modelIdMaxLength: 200,
  nameMaxLength: 100,
} as const;

/** The settings of a key, in domain form (amounts in µIRT, dates as Date). */
export interface KeySettings {
  readonly name: string;
  readonly rateLimit: number;
  readonly monthlyCapMicros: bigint | null;
  readonly allowedIps: readonly string[];
  /** null: every model. */
  readonly allowedModels: readonly string[] | null;
  readonly identityInjection: boolean;
  readonly expiresAt: Date | null;
  readonly active: boolean;
}

/** The settings as they travel in admin requests and responses (snake case, Toman). */
export interface KeySettingsInput {
  name?: string;
  rate_limit?: number;
  monthly_cap?: number | null;
  allowed_ips?: string[];
  allowed_models?: string[] | null;
  identity_injection?: boolean;
  expires_at?: string | null;
  active?: boolean;
}

/** Settings of a new key when the request leaves them out. */
export const DEFAULT_KEY_SETTINGS: KeySettings = Object.freeze({
  name: '',
  rateLimit: KEY_SETTING_LIMITS.rateLimitDefault,
  monthlyCapMicros: null,
  allowedIps: Object.freeze([]),
  allowedModels: null,
  identityInjection: true,
  expiresAt: null,
  active: true,
});

const MODEL_ID = /^[a-z0-9][a-z0-9._-]*\/\S+$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** JSON schema of the settings in an admin body: the route rejects wrong types and sizes with it. */
export const keySettingsBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: KEY_SETTING_LIMITS.nameMaxLength },
    rate_limit: {
      type: 'integer',
      minimum: KEY_SETTING_LIMITS.rateLimitMin,
      maximum: KEY_SETTING_LIMITS.rateLimitMax,
    },
    monthly_cap: {
      type: ['number', 'null'],
      exclusiveMinimum: 0,
      maximum: KEY_SETTING_LIMITS.monthlyCapMax,
    },
    allowed_ips: {
      type: 'array',
      maxItems: KEY_SETTING_LIMITS.allowedIpsMax,
      items: { type: 'string', maxLength: 64 },
    },
    allowed_models: {
      type: ['array', 'null'],
      minItems: 1,
      maxItems: KEY_SETTING_LIMITS.allowedModelsMax,
      items: { type: 'string', maxLength: KEY_SETTING_LIMITS.modelIdMaxLength, pattern: MODEL_ID.source },
    },
    identity_injection: { type: 'boolean' },
    expires_at: { type: ['string', 'null'], maxLength: 40 },
    active: { type: 'boolean' },
  },
} as const;

/**
 * Validates and normalizes settings given by an operator; only the fields present are returned.
 * Throws a 400 `invalid_request_error` naming the first bad field. Checks everything itself (not
 * only what the route schema cannot), so any caller, the console included, gets the same rules.
 */
export function parseKeySettings(input: KeySettingsInput): Partial<KeySettings> {
  const raw = input as Record<string, unknown>;
  for (const field of Object.keys(raw)) {
    if (!Object.hasOwn(keySettingsBodySchema.properties, field)) throw invalid(field, 'is not a key setting');
  }
  const out: { -readonly [K in keyof KeySettings]?: KeySettings[K] } = {};
  if (raw.name !== undefined) out.name = parseName(raw.name);
  if (raw.rate_limit !== undefined) out.rateLimit = parseRateLimit(raw.rate_limit);
  if (raw.monthly_cap !== undefined) out.monthlyCapMicros = parseMonthlyCap(raw.monthly_cap);
  if (raw.allowed_ips !== undefined) out.allowedIps = parseAllowedIps(raw.allowed_ips);
  if (raw.allowed_models !== undefined) out.allowedModels = parseAllowedModels(raw.allowed_models);
  if (raw.identity_injection !== undefined)
    out.identityInjection = parseBoolean('identity_injection', raw.identity_injection);
  if (raw.expires_at !== undefined) out.expiresAt = parseExpiresAt(raw.expires_at);
  if (raw.active !== undefined) out.active = parseBoolean('active', raw.active);
  return out;
}

function parseName(value: unknown): string {
  if (typeof value !== 'string') throw invalid('name', 'must be a string');
  if (value.length > KEY_SETTING_LIMITS.nameMaxLength) {
    throw invalid('name', `must be at most ${KEY_SETTING_LIMITS.nameMaxLength} characters`);
  }
  return value;
}

function parseRateLimit(value: unknown): number {
  const { rateLimitMin: min, rateLimitMax: max } = KEY_SETTING_LIMITS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid('rate_limit', `must be a whole number of requests per minute from ${min} to ${max}`);
  }
  return value;
}

function parseMonthlyCap(value: unknown): bigint | null {
  if (value === null) return null;
  const max = KEY_SETTING_LIMITS.monthlyCapMax;
  if (typeof value !== 'number' || !(value > 0 && value <= max) || !hasAtMostSixDecimals(value)) {
    throw invalid(
      'monthly_cap',
      `must be null or an amount in Toman above 0 and at most ${max}, with at most 6 decimals`,
    );
  }
  // Exact decimal conversion: a float never becomes money (docs/money-core.md).
  return irtToMicros(value);
}

function parseAllowedIps(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalid('allowed_ips', 'must be an array of IP addresses');
  if (value.length > KEY_SETTING_LIMITS.allowedIpsMax) {
    throw invalid('allowed_ips', `must list at most ${KEY_SETTING_LIMITS.allowedIpsMax} addresses`);
  }
  const normalized = value.map((entry, index) => {
    const address = typeof entry === 'string' ? normalizeIpAddress(entry) : undefined;
    if (address === undefined) {
      throw invalid(
        `allowed_ips[${index}]`,
        'must be an exact IPv4 or IPv6 address (CIDR ranges are not supported)',
      );
    }
    return address;
  });
  return [...new Set(normalized)];
}

function parseAllowedModels(value: unknown): string[] | null {
  if (value === null) return null;
  const { allowedModelsMax: max, modelIdMaxLength } = KEY_SETTING_LIMITS;
  if (!Array.isArray(value) || value.length === 0 || value.length > max) {
    throw invalid('allowed_models', `must be null (every model) or an array of 1 to ${max} model ids`);
  }
  value.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.length > modelIdMaxLength || !MODEL_ID.test(entry)) {
      throw invalid(`allowed_models[${index}]`, 'must be a model id of the form <provider>/<model_name>');
    }
  });
  return [...new Set(value as string[])];
}

function parseExpiresAt(value: unknown): Date | null {
  if (value === null) return null;
  const date = typeof value === 'string' && DATE_TIME.test(value) ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()) || !isCalendarDate(value as string)) {
    throw invalid(
      'expires_at',
      'must be null or an ISO 8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z',
    );
  }
  return date;
}

// `Date` rolls 2030-02-31 over into March instead of refusing it.
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

function parseBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid(field, 'must be true or false');
  return value;
}

function invalid(field: string, rule: string) {
  return errors.invalidRequest(`Invalid key setting \`${field}\`: ${rule}.`);
}
