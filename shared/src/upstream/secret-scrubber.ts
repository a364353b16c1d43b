/**
 * The one secret scrubber of the gateway: it removes the credentials the gateway holds from any
 * text that came from an upstream (or from anywhere else) before that text reaches a client or a
 * log line.
 *
 * Two complementary passes, in this order:
 * 1. **By value.** Every secret of the configuration (each upstream `apiKey`, the admin token, the
 *    S3 secret, the passwords inside the Redis and MongoDB URLs; see `configuredSecrets`) is
 *    replaced wherever it occurs, whatever its shape: a letters-only key such as
 *    `abcdefghijklmnopqrstuvwxyzABCDEF` matches no pattern but is still caught. Its cheap encoded
 *    forms are caught too: percent-encoded (upper- and lower-case hex, `encodeURI` and form
 *    encoding), JSON-escaped, and base64 / base64url at each of the three byte alignments (so a key
 *    inside a base64 `user:key` blob is found; only the characters that depend on the key alone are
 *    replaced, which can leave one edge character holding a few of its bits). Occurrences may overlap
 *    (two keys sharing characters, one key inside another): every occurrence of every form is marked
 *    and the union is replaced, so no tail of a longer key survives a shorter one's replacement.
 *    Secrets shorter than `MIN_SAFE_SECRET_LENGTH` are still replaced (raw, percent- and
 *    JSON-encoded, not base64), but such short strings also occur in ordinary text, which is then
 *    redacted as well (a false positive, never a leak); `installSecretScrubber` warns about them.
 * 2. **By shape** (`KEY_SHAPES`): keys the gateway does not hold but an upstream may echo, with a
 *    known prefix (`sk-`, `sk-ant-`, `sk_`, `hk-` (ours), `xai-`, `gsk_`, `pk-`/`rk-`, `AIza…`,
 *    Runway's `key_…` of 32+ characters), `Bearer` tokens, `key=`/`api_key=`/`token=` query
 *    parameters, key headers written out (`x-api-key: …`) and passwords in URLs
 *    (`scheme://user:password@`). Shapes apply to log lines too, so they are kept narrow: the
 *    gateway's own identifiers (`key_` + 24 hex, `acct_…`, request and job ids) never match.
 *
 * Where it runs: every provider's error-message mapping, in-stream error events and media job
 * failure messages go through `sanitizeUpstreamText` (upstream-text.ts), which starts with this
 * scrubber; `failureFromStatus` scrubs every route failure's message again before it can become an
 * AppError; and the logger's `streamWrite` hook (logging/logger.ts) scrubs every serialized log line,
 * so an upstream text logged anywhere (an `err` with its message and stack, a 4xx message logged at
 * info) never writes a held secret. Pino's path redaction still removes the known fields (headers,
 * `apiKey`…); the hook is the net under it, for values in free text.
 *
 * Wiring, and why a process-wide registry: the call sites are pure functions on module-level, frozen
 * adapter tables (`errorMessage(status, body)`, stream translators, `polled(json)`; media-types.ts
 * documents the adapters as pure functions), and the logger is created before any service. Passing
 * a scrubber explicitly would change the signature of every adapter function and of the api's relay
 * code. So the scrubber is built once at start from the configuration (`installSecretScrubber`,
 * called by each entry right after the configuration is read, so that nothing is logged unscrubbed,
 * and again where a process builds its services: `createApiServices`, `createMediaWorkerDeps`, which
 * tests call without an entry) into the registry below, and read through `scrubSecrets` /
 * `scrubLogLine`. `createSecretScrubber` is the pure factory, used directly by tests. Installing adds
 * to the secrets already installed (never removes): a process that builds an api and a worker (the
 * tests do) scrubs the keys of both; installing the same configuration twice changes nothing.
 * Before any install only the shapes apply.
 */
import type { Config } from '../config/config.ts';

export const REDACTED = '[redacted]';

/**
 * Below this length a secret also occurs by chance in ordinary text: it is still scrubbed (raw,
 * percent- and JSON-encoded), which then redacts unrelated text too. Its base64 forms are skipped:
 * a few base64 characters would match far too often.
 */
export const MIN_SAFE_SECRET_LENGTH = 8;

/**
 * Key shapes an upstream may echo, whether or not the gateway holds the key. Each pattern only
 * matches characters that never need escaping in JSON (no quote, no backslash), so replacing inside
 * a serialized log line keeps it valid JSON. `$1`/`$2` keep the non-secret part (the parameter or
 * header name).
 */
const KEY_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  // Prefixed keys: OpenAI/DeepSeek `sk-` (`sk-proj-`, `sk-ant-` of Anthropic), ElevenLabs `sk_`,
  // ours `hk-`, xAI `xai-`, Groq `gsk_`, publishable/restricted `pk_`/`rk_`; masked or not.
  [/\b(?:sk|hk|pk|rk|xai|gsk)[-_][\w*-]{3,}/gi, REDACTED],
  // Google API keys.
  [/\bAIza[0-9A-Za-z_-]{10,}/g, REDACTED],
  // Runway keys (`key_` and a long hex string). 32+ characters: the gateway's own key ids
  // (`key_` and 24 hex, logged with every admitted request) are identifiers, not secrets.
  [/\bkey_[A-Za-z0-9]{32,}/g, REDACTED],
  // Bearer tokens: 16+ token characters, or 8+ with a digit (so "Bearer authentication" stays).
  [
    /\b(Bearer\s+)(?:[A-Za-z0-9._~+/=-]{16,}|(?=[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,})/gi,
    `$1${REDACTED}`,
  ],
  // Credentials in query strings or form bodies: `?key=…`, `&api_key=…`, `access_token=…`.
  [
    /\b((?:api[_-]?)?key|access_token|token|sig|signature)=(?!\[redacted\])[^&\s"'<>#\\]+/gi,
    `$1=${REDACTED}`,
  ],
  // Key headers written out in a message: `x-api-key: …`, `x-goog-api-key=…`, `xi-api-key: …`.
  [/\b((?:x-goog-|x-|xi-)?api-key"?\s*[:=]\s*"?)(?!\[redacted\])[^\s"'\\,;}]{6,}/gi, `$1${REDACTED}`],
  // A password inside a URL: `scheme://user:password@host`.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@"\\]*:)[^\s/@"\\]+@/gi, `$1${REDACTED}@`],
];

export interface SecretScrubber {
  /** `text` with every held secret (and its encoded forms) and every key shape replaced. */
  scrub(text: string): string;
  /**
   * A serialized JSON log line, scrubbed and still valid JSON: when it holds a secret or a key
   * shape, it is parsed, every string (names included) is scrubbed, and it is serialized again.
   */
  scrubJsonLine(line: string): string;
  /** How many distinct secrets are held (for tests and the start-up warning). */
  readonly secretCount: number;
}

/** A held secret and where it came from in the configuration (never the value, in messages). */
export interface NamedSecret {
  readonly source: string;
  readonly value: string;
}

/** The parts of the configuration that hold secrets. */
export type SecretSources = Pick<Config, 'providers' | 'compatibleUpstreams' | 'adminToken' | 's3'> &
  Partial<Pick<Config, 'redis' | 'store' | 'mail' | 'payments' | 'channelSecrets'>>;

/** Every secret the configuration holds: upstream keys, admin token, S3 secret, URL passwords. */
export function configuredSecrets(config: SecretSources): NamedSecret[] {
  const found: NamedSecret[] = [];
  const add = (source: string, value: string | undefined) => {
    if (value !== undefined && value !== '') found.push({ source, value });
  };
  for (const [id, upstream] of Object.entries(config.providers))
    add(`providers.${id}.apiKey`, upstream.apiKey);
  for (const [id, upstream] of Object.entries(config.compatibleUpstreams))
    add(`compatibleUpstreams.${id}.apiKey`, upstream.apiKey);
  add('adminToken', config.adminToken);
  add('channelSecrets.current', config.channelSecrets?.current);
  add('channelSecrets.previous', config.channelSecrets?.previous);
  add('s3.secretAccessKey', config.s3.secretAccessKey);
  if (config.redis?.mode === 'single') add('redis.url password', urlPassword(config.redis.url));
  if (config.redis !== undefined && config.redis.mode !== 'single')
    add('redis.password', config.redis.password);
  if (config.redis?.mode === 'sentinel') add('redis.sentinelPassword', config.redis.sentinelPassword);
  if (config.store?.kind === 'mongodb') add('store.url password', urlPassword(config.store.url));
  if (config.mail?.smtpUrl !== undefined) add('mail.smtpUrl password', urlPassword(config.mail.smtpUrl));
  add('payments.zarinpal.merchantId', config.payments?.zarinpal?.merchantId);
  return found;
}

function urlPassword(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password === '' ? undefined : decodeURIComponentSafe(password);
  } catch {
    return undefined;
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Builds a scrubber over these secrets (empty and duplicate values are ignored). */
export function createSecretScrubber(secrets: Iterable<string | null | undefined>): SecretScrubber {
  const values = [...new Set([...secrets].filter((s): s is string => typeof s === 'string' && s !== ''))];
  // Longest first: the order does not change the result (occurrences are merged), but a long key is
  // then found before any shorter key inside it, and the lists read in a stable order.
  values.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const forms = values.flatMap((value) => encodedForms(value));
  // Upstream text may quote a JSON document (an error body inside a message): escaped forms too.
  const textForms = sortedUnique([...forms, ...forms.map(jsonEscaped)]);
  // In a serialized log line every string is JSON-escaped.
  const lineForms = sortedUnique(forms.map(jsonEscaped));

  const scrub = (text: string): string => scrubShapes(replaceOccurrences(text, textForms));
  return {
    secretCount: values.length,
    scrub,
    scrubJsonLine(line: string): string {
      if (!containsAny(line, lineForms) && !hasShape(line)) return line;
      const trailing = line.endsWith('\n') ? '\n' : '';
      try {
        return JSON.stringify(scrubJson(JSON.parse(line), scrub, textForms)) + trailing;
      } catch {
        // Not one JSON document (pino always writes one): scrub the text; the shapes and the
        // JSON-escaped forms never contain a quote or a backslash, so JSON stays JSON where it was.
        return scrubShapes(replaceOccurrences(line, lineForms));
      }
    },
  };
}

/** The forms under which a secret may appear in text: raw, percent-encoded, base64 cores. */
function encodedForms(secret: string): string[] {
  const forms = [secret, new URLSearchParams({ k: secret }).toString().slice(2)];
  try {
    const component = encodeURIComponent(secret);
    forms.push(component, lowerHex(component), encodeURI(secret));
  } catch {
    // A lone surrogate cannot be percent-encoded, so it never appears percent-encoded either.
  }
  if (secret.length >= MIN_SAFE_SECRET_LENGTH) forms.push(...base64Cores(secret));
  return forms;
}

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase());
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The base64 and base64url characters that depend on the secret alone, for each of the 3 byte
 * offsets at which it can start inside a longer encoded blob.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length < MIN_SAFE_SECRET_LENGTH) continue;
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

function sortedUnique(forms: string[]): string[] {
  return [...new Set(forms.filter((form) => form !== ''))].sort(
    (a, b) => b.length - a.length || (a < b ? -1 : 1),
  );
}

function containsAny(text: string, forms: readonly string[]): boolean {
  for (const form of forms) if (text.includes(form)) return true;
  return false;
}

/**
 * Replaces every occurrence of every form, overlapping ones included: the covered ranges are merged
 * and each merged range becomes one `[redacted]`.
 */
function replaceOccurrences(text: string, forms: readonly string[]): string {
  const ranges: Array<[number, number]> = [];
  for (const form of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
      ranges.push([at, at + form.length]);
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let result = '';
  let cursor = 0;
  let [start, end] = ranges[0] as [number, number];
  for (const [from, to] of ranges) {
    if (from <= end) {
      end = Math.max(end, to);
      continue;
    }
    result += text.slice(cursor, start) + REDACTED;
    cursor = end;
    [start, end] = [from, to];
  }
  return result + text.slice(cursor, start) + REDACTED + text.slice(end);
}

function scrubShapes(text: string): string {
  let scrubbed = text;
  for (const [pattern, replacement] of KEY_SHAPES) scrubbed = scrubbed.replace(pattern, replacement);
  return scrubbed;
}

function hasShape(text: string): boolean {
  return KEY_SHAPES.some(([pattern]) => {
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  });
}

/** A parsed log line with every string scrubbed, and numbers whose digits hold a secret removed. */
function scrubJson(value: unknown, scrub: (text: string) => string, forms: readonly string[]): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value === 'number') {
    const digits = String(value);
    return containsAny(digits, forms) ? REDACTED : value;
  }
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, scrub, forms));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[scrub(key)] = scrubJson(item, scrub, forms);
    return out;
  }
  return value;
}

/* ----------------------------------------------------------------------------------------------
 * The process-wide registry (see the module comment for why one exists)
 * -------------------------------------------------------------------------------------------- */

const installedSecrets = new Set<string>();
let current: SecretScrubber = createSecretScrubber([]);

/**
 * Builds the process's scrubber from the configuration, at start (adding to what an earlier call
 * installed; installing the same secrets again keeps the scrubber as it is). Secrets shorter than
 * `MIN_SAFE_SECRET_LENGTH` are named (never shown) in a warning to `logger`, when one is given.
 */
export function installSecretScrubber(
  config: SecretSources,
  logger?: { warn(obj: object, msg: string): void },
): SecretScrubber {
  const secrets = configuredSecrets(config);
  const known = installedSecrets.size;
  for (const { value } of secrets) installedSecrets.add(value);
  if (installedSecrets.size !== known) current = createSecretScrubber(installedSecrets);
  const short = secrets.filter(({ value }) => value.length < MIN_SAFE_SECRET_LENGTH).map((s) => s.source);
  if (short.length > 0) {
    logger?.warn(
      { secrets: short, minLength: MIN_SAFE_SECRET_LENGTH },
      'configured secrets shorter than the safe minimum: every occurrence of them in upstream text and logs is redacted, unrelated text included',
    );
  }
  return current;
}

/**
 * Adds secrets learnt at run time (the channels' credentials, before their first use) to the
 * process's scrubber; values it already holds change nothing.
 */
export function registerSecrets(values: Iterable<string>): void {
  const known = installedSecrets.size;
  for (const value of values) if (value !== '') installedSecrets.add(value);
  if (installedSecrets.size !== known) current = createSecretScrubber(installedSecrets);
}

/** The process's scrubber (shapes only until `installSecretScrubber` ran). */
export function secretScrubber(): SecretScrubber {
  return current;
}

/** `text` with the process's held secrets and every key shape replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  return current.scrub(text);
}

/** A serialized log line scrubbed by the process's scrubber (the logger's `streamWrite` hook). */
export function scrubLogLine(line: string): string {
  return current.scrubJsonLine(line);
}
