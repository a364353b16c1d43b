/**
 * The fuzz suite's request generators: one arbitrary per endpoint group of the gateway (every `/v1`
 * endpoint of the spec, the operator API `/admin/v1`, the console API `/console/api`, unknown paths
 * and methods, raw malformed HTTP), each mixing valid shapes with hostile values, carriers and
 * headers. A generated request names secrets and ids by placeholders (`{{key:good:3}}`,
 * `{{admin}}`, `{{session:holder}}`, …) that the runner resolves against the fixture at send time,
 * so a printed counterexample never holds a secret and replays on any fixture.
 */
import fc from 'fast-check';
import { hostileBody, hostileNumberArb, longStringArb, nanLikeArb, unicodeStringArb } from './hostile.ts';

/** Endpoint groups, as the report counts them. */
export const GROUPS = [
  'models',
  'chat',
  'embeddings',
  'images',
  'speech',
  'transcriptions',
  'balance',
  'usage',
  'videos',
  'admin',
  'console',
  'unknown',
  'raw',
] as const;
export type Group = (typeof GROUPS)[number];

/** What a multipart part holds; materialized at send time. */
export type PartContent =
  | { readonly type: 'wav'; readonly seconds: number }
  | { readonly type: 'mp3'; readonly seconds: number }
  | { readonly type: 'png' }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'garbage'; readonly bytes: number; readonly seed: number };

export interface MultipartPart {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly content: PartContent;
}

export type BodySpec =
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'multipart';
      readonly boundary: string;
      readonly parts: readonly MultipartPart[];
      /** Cut the encoded body to this fraction (a truncated upload), 1: whole. */
      readonly keep: number;
      /** Leave out the closing boundary. */
      readonly unterminated: boolean;
    }
  | { readonly type: 'bytes'; readonly hex: string };

/** How the body is framed on the wire (anything but `normal` goes over a raw socket). */
export type Framing =
  | 'normal'
  | 'chunked'
  /** Content-Length larger than the bytes sent: the body stalls (answered 408 by the body deadline). */
  | 'stall'
  /** Content-Length smaller than the body: the rest is garbage after the request. */
  | 'short'
  | 'two-lengths'
  | 'negative-length'
  | 'garbage-length'
  | 'length-and-chunked';

export interface HttpFuzzRequest {
  readonly kind: 'http';
  readonly group: Group;
  readonly method: string;
  /** Path and query; may hold placeholders. */
  readonly path: string;
  /** In order, duplicates allowed; values may hold placeholders. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: BodySpec;
  readonly framing: Framing;
}

export interface RawFuzzRequest {
  readonly kind: 'raw';
  readonly group: 'raw';
  /** What the bytes try (for the report). */
  readonly name: string;
  /** The bytes as latin1 text, with placeholders (`{{host}}`, keys). */
  readonly text: string;
}

export type FuzzRequest = HttpFuzzRequest | RawFuzzRequest;

/** Percent-encodes the UTF-8 of `text` (lone surrogates too, as U+FFFD), like encodeURIComponent without its URIError. */
export function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.!~*'()]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// --- keys and carriers -------------------------------------------------------------------------

/** The fixture's keys with settings (fixture.ts makes each). */
export const SPECIAL_KEYS = [
  'rateLimited',
  'tinyCap',
  'ipLocked',
  'modelLocked',
  'noIdentity',
  'expired',
  'disabled',
  'deleted',
  'poor',
  'inactiveAccount',
] as const;
export type SpecialKey = (typeof SPECIAL_KEYS)[number];

/** How many funded keys with a high rate limit the fixture makes (fixture.ts). */
export const GOOD_KEYS = 12;

const goodIndexArb = fc.nat({ max: GOOD_KEYS - 1 });

/** A key reference: a placeholder, or literal hostile text. */
const keyValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 150, arbitrary: goodIndexArb.map((i) => `{{key:good:${i}}}`) },
  { weight: 16, arbitrary: fc.constantFrom(...SPECIAL_KEYS).map((name) => `{{key:special:${name}}}`) },
  { weight: 5, arbitrary: goodIndexArb.map((i) => `{{key:mangled:${i}}}`) },
  { weight: 4, arbitrary: goodIndexArb.map((i) => `{{key:noprefix:${i}}}`) },
  { weight: 3, arbitrary: goodIndexArb.map((i) => `{{key:upper:${i}}}`) },
  {
    weight: 8,
    arbitrary: fc.oneof(
      fc.constantFrom('hk-', 'hk-x', 'sk-proj-abc123', 'HK-abc', 'null', 'undefined', ' ', 'hk-\u00e9'),
      fc.string({ maxLength: 60 }).map((s) => `hk-${s}`),
      fc.string({ maxLength: 40 }),
      fc.constantFrom('hk-'.padEnd(5_000, 'a')),
    ),
  },
);

export const CARRIERS = [
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'xi-api-key',
  'x-key',
  'query',
] as const;
export type Carrier = (typeof CARRIERS)[number];

const bearerSchemeArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant('Bearer ') },
  { weight: 1, arbitrary: fc.constantFrom('bearer ', 'BEARER ', 'Bearer  ', ' Bearer ', 'Bearer\t') },
  { weight: 1, arbitrary: fc.constantFrom('', 'Basic ', 'Token ', 'Bearer', 'Bearer:') },
);

/** Where a key travels: a header (name, value) or the `key` query parameter. */
interface CarrierUse {
  readonly carrier: Carrier;
  readonly value: string;
}

const carrierUseArb: fc.Arbitrary<CarrierUse> = fc
  .tuple(fc.constantFrom(...CARRIERS), keyValueArb, bearerSchemeArb)
  .map(([carrier, key, scheme]) => ({
    carrier,
    value: carrier === 'authorization' ? `${scheme}${key}` : key,
  }));

/** Mostly one carrier, sometimes several at once, sometimes none. */
export const carriersArb: fc.Arbitrary<readonly CarrierUse[]> = fc.oneof(
  { weight: 14, arbitrary: carrierUseArb.map((use) => [use]) },
  { weight: 2, arbitrary: fc.array(carrierUseArb, { minLength: 2, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constant([]) },
);

function applyCarriers(
  path: string,
  uses: readonly CarrierUse[],
): { path: string; headers: Array<[string, string]> } {
  const headers: Array<[string, string]> = [];
  let out = path;
  for (const use of uses) {
    if (use.carrier === 'query') {
      const value = use.value.includes('{{') ? use.value : pct(use.value);
      out += `${out.includes('?') ? '&' : '?'}key=${value}`;
    } else headers.push([use.carrier, use.value]);
  }
  return { path: out, headers };
}

// --- hostile headers ---------------------------------------------------------------------------

const jsonContentTypeArb = fc.oneof(
  { weight: 60, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=utf-16',
      'application/json;;;',
      'application/vnd.api+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=abc',
      'application/octet-stream',
      '*/*',
      '',
      'application/json, text/plain',
      `application/json; x=${'a'.repeat(2_000)}`,
    ),
  },
);

/** Headers a hostile client adds to any request. */
const extraHeadersArb: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 24, arbitrary: fc.constant<Array<[string, string]>>([]) },
  {
    weight: 6,
    arbitrary: fc.array(
      fc.oneof(
        fc.constantFrom<[string, string]>(
          ['x-service-identity', 'off'],
          ['x-service-identity', '0'],
          ['x-service-identity', 'maybe'],
          ['x-forwarded-for', '10.1.2.3'],
          ['x-forwarded-for', '10.1.2.3, 127.0.0.1'],
          ['x-forwarded-proto', 'https'],
          ['x-real-ip', '10.1.2.3'],
          ['accept', 'text/csv'],
          ['accept', 'text/event-stream'],
          ['accept-encoding', 'gzip, br'],
          ['content-encoding', 'gzip'],
          ['origin', 'https://evil.example'],
          ['cookie', 'gw_session=garbage'],
          ['cookie', 'gw_session='],
          ['range', 'bytes=0-10'],
          ['idempotency-key', 'fuzz-idem'],
          ['x-request-id', 'req_spoofed'],
          ['expect', '100-continue'],
          ['x-csrf-token', 'nope'],
          ['x-requested-with', 'console'],
        ),
        fc
          .tuple(
            fc.constantFrom('x-fuzz', 'x-big', 'user-agent', 'referer', 'accept-language'),
            fc.oneof(
              { weight: 6, arbitrary: unicodeStringArb },
              { weight: 1, arbitrary: fc.constantFrom('a'.repeat(8_000), 'b'.repeat(17_000), '') },
            ),
          )
          .map(([name, value]): [string, string] => [name, value]),
      ),
      { minLength: 1, maxLength: 4 },
    ) as fc.Arbitrary<Array<[string, string]>>,
  },
  {
    weight: 1,
    // Many headers (Node keeps the first 2000).
    arbitrary: fc
      .constantFrom(200, 1_000, 2_500)
      .map((n) => Array.from({ length: n }, (_, i): [string, string] => [`x-h${i}`, 'v'])),
  },
);

// --- models ------------------------------------------------------------------------------------

const MODELS_BY_TYPE = {
  chat: [
    'demo/chat',
    'demo/chat-reasoning',
    'openai/gpt-4o-mini',
    'openai/gpt-5',
    'anthropic/claude-sonnet-4-5',
    'google/gemini-2.5-flash',
    'deepseek/deepseek-chat',
    'xai/grok-4',
    'mistral/mistral-small-latest',
    'gpt5',
    'sonnet',
    'gpt-4o-mini',
    'claude-haiku-4-5',
  ],
  embedding: [
    'demo/embedding',
    'openai/text-embedding-3-small',
    'google/gemini-embedding-001',
    'mistral/mistral-embed',
  ],
  image: ['demo/image', 'openai/gpt-image-1', 'openai/dall-e-3', 'google/imagen-4', 'xai/grok-2-image'],
  tts: ['demo/tts', 'openai/tts-1', 'openai/gpt-4o-mini-tts', 'elevenlabs/eleven_v3', 'groq/playai-tts'],
  stt: [
    'demo/stt',
    'openai/whisper-1',
    'groq/whisper-large-v3',
    'elevenlabs/scribe_v1',
    'mistral/voxtral-mini-transcribe',
  ],
  video: ['demo/video', 'openai/sora-2', 'google/veo-3-fast', 'runway/gen4.5'],
} as const;
type ModelType = keyof typeof MODELS_BY_TYPE;
const ALL_MODELS = Object.values(MODELS_BY_TYPE).flat();

function modelArb(type: ModelType): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom(...MODELS_BY_TYPE[type]) },
    { weight: 2, arbitrary: fc.constantFrom(...ALL_MODELS) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'nope/model',
        'demo',
        'demo/',
        '/chat',
        'DEMO/CHAT',
        'demo/chat/extra',
        'demo%2Fchat',
        'demo/sound',
        ' demo/chat',
        'x'.repeat(300),
      ),
    },
    { weight: 1, arbitrary: unicodeStringArb },
  );
}

// --- per-endpoint valid shapes -----------------------------------------------------------------

const shortTextArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('hello', 'Say hi.', 'سلام، حالت چطوره؟', 'a fox in the snow', 'x'),
  },
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 80 }) },
  { weight: 1, arbitrary: unicodeStringArb },
);

/** Optional fields of a record: each present or not. */
function optional<T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) {
  return fc.record(fields, { requiredKeys: [] });
}

function merged(
  required: fc.Arbitrary<Record<string, unknown>>,
  extra: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(required, extra).map(([a, b]) => ({ ...a, ...b }));
}

const PNG_DATA =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const contentPartArb = fc.oneof(
  { weight: 4, arbitrary: shortTextArb.map((text) => ({ type: 'text', text })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        PNG_DATA,
        'https://example.com/cat.png',
        'http://insecure/x.png',
        'data:image/png;base64,@@@',
      )
      .map((url) => ({ type: 'image_url', image_url: { url, detail: 'auto' } })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      type: 'file',
      file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' },
    }),
  },
);

const messageArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      role: fc.constantFrom('user', 'system', 'developer', 'assistant'),
      content: shortTextArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      role: fc.constant('user'),
      content: fc.array(contentPartArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
    }),
  },
  { weight: 1, arbitrary: fc.constant({ role: 'tool', tool_call_id: 'call_1', content: '12:00' }) },
);

const chatValidArb = merged(
  fc.record({ model: modelArb('chat'), messages: fc.array(messageArb, { minLength: 1, maxLength: 4 }) }),
  optional({
    stream: fc.boolean(),
    stream_options: fc.record({ include_usage: fc.boolean() }),
    max_tokens: fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: 1, max: 256 }) },
      { weight: 1, arbitrary: fc.constantFrom(4_000_000, 100_000) },
    ),
    max_completion_tokens: fc.integer({ min: 1, max: 256 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
    stop: fc.oneof(fc.string({ maxLength: 5 }), fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 })),
    seed: fc.integer(),
    n: fc.integer({ min: 1, max: 3 }),
    user: fc.string({ maxLength: 20 }),
    tools: fc.constant([
      {
        type: 'function',
        function: { name: 'get_time', description: 'time', parameters: { type: 'object' } },
      },
    ]),
    tool_choice: fc.constantFrom('auto', 'none', 'required'),
    response_format: fc.constantFrom(
      { type: 'text' },
      { type: 'json_object' },
      { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
    ),
    reasoning_effort: fc.constantFrom('low', 'high', 'max'),
    // Most models refuse web_search (400): mostly false, so most requests reach the model.
    web_search: fc.constantFrom(false, false, false, true),
    logprobs: fc.boolean(),
    top_logprobs: fc.integer({ min: 0, max: 20 }),
    logit_bias: fc.constant({ '50256': -100 }),
  }),
);

const embeddingsValidArb = merged(
  fc.record({
    model: modelArb('embedding'),
    input: fc.oneof(shortTextArb, fc.array(shortTextArb, { minLength: 1, maxLength: 8 })),
  }),
  optional({
    dimensions: fc.integer({ min: 1, max: 3_072 }),
    encoding_format: fc.constantFrom('float', 'base64'),
    user: fc.string({ maxLength: 10 }),
  }),
);

const sizeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('256x256', '512x512', '1024x1024', '1536x1024', 'auto') },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 10, max: 99_999 }), fc.integer({ min: 10, max: 99_999 }))
      .map(([w, h]) => `${w}x${h}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('0x0', '1024', 'huge', '1024x1024x3', '-1x-1') },
);

const imagesValidArb = merged(
  fc.record({ prompt: shortTextArb }),
  optional({
    model: modelArb('image'),
    n: fc.integer({ min: 1, max: 4 }),
    size: sizeArb,
    quality: fc.constantFrom('low', 'medium', 'high', 'auto'),
    background: fc.constantFrom('transparent', 'opaque', 'auto'),
    aspect_ratio: fc.constantFrom('16:9', '1:1', '9:16', '99:1'),
    response_format: fc.constant('b64_json'),
    user: fc.string({ maxLength: 10 }),
  }),
);

const speechValidArb = merged(
  fc.record({
    input: shortTextArb,
    voice: fc.constantFrom('alloy', 'nova', 'Rachel', '21m00Tcm4TlvDq8ikWAM'),
  }),
  optional({
    model: modelArb('tts'),
    instructions: shortTextArb,
    speed: fc.double({ min: 0.25, max: 4, noNaN: true }),
    response_format: fc.constant('mp3'),
  }),
);

const videoValidArb = merged(
  fc.record({ model: modelArb('video'), prompt: shortTextArb }),
  optional({
    duration: fc.integer({ min: 1, max: 12 }),
    aspect_ratio: fc.constantFrom('16:9', '9:16', '1:1'),
    resolution: fc.constantFrom('720p', '1080p'),
  }),
);

// --- bodies ------------------------------------------------------------------------------------

/** A JSON body: the endpoint's shape, mutated or not; now and then no body, text or bad bytes. */
function jsonBodyArb(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<BodySpec | undefined> {
  return fc.oneof(
    { weight: 30, arbitrary: hostileBody(valid).map((value): BodySpec => ({ type: 'json', value })) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom('', '{', '}', 'null', '[]', '"x"', '{"model":', '{"a":1}{"b":2}', '{"a":1,"a":2}'),
          fc.string({ maxLength: 200 }),
          longStringArb,
        )
        .map((text): BodySpec => ({ type: 'text', text })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'fffe7b7d',
          'efbbbf7b7d',
          '7b226d6f64656c223a22ff227d',
          '00000000',
          '1f8b0800000000000003',
        )
        .map((hex): BodySpec => ({ type: 'bytes', hex })),
    },
    {
      weight: 1,
      // Bodies around and above MAX_BODY_BYTES (8 MiB by default).
      arbitrary: fc
        .constantFrom(1_000_000, 8_388_000, 8_388_700)
        .map((n): BodySpec => ({ type: 'text', text: `{"input":"${'z'.repeat(n)}"}` })),
    },
  );
}

const framingArb: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 60, arbitrary: fc.constant<Framing>('normal') },
  { weight: 4, arbitrary: fc.constant<Framing>('chunked') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Framing>(
      'stall',
      'short',
      'two-lengths',
      'negative-length',
      'garbage-length',
      'length-and-chunked',
    ),
  },
);

// --- keyed endpoints ---------------------------------------------------------------------------

/** A path as a client might mangle it: trailing slash, case, double slashes, junk query. */
function pathVariantArb(path: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 40, arbitrary: fc.constant(path) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        `${path}/`,
        `${path}?`,
        `${path}?x=1&x=2`,
        `${path}?key`,
        `${path}?%zz=1`,
        `${path}#frag`,
        path.toUpperCase(),
        path.replace('/v1/', '/v1//'),
        path.replace('/v1/', '/v1/./'),
        path.replace('/v1/', '/v1/../v1/'),
        path.replace(/\//g, '%2F'),
        `${path};jsessionid=1`,
      ),
    },
  );
}

interface KeyedOptions {
  readonly group: Group;
  readonly methods: fc.Arbitrary<string>;
  readonly path: fc.Arbitrary<string>;
  readonly body?: fc.Arbitrary<BodySpec | undefined>;
  readonly contentType?: fc.Arbitrary<string | undefined>;
}

function keyedRequestArb(options: KeyedOptions): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: options.methods,
      path: options.path,
      carriers: carriersArb,
      body: options.body ?? fc.constant(undefined),
      contentType: options.contentType ?? jsonContentTypeArb,
      extra: extraHeadersArb,
      framing: framingArb,
    })
    .map(({ method, path, carriers, body, contentType, extra, framing }): FuzzRequest => {
      const withKeys = applyCarriers(path, carriers);
      const headers: Array<[string, string]> = [...withKeys.headers];
      if (body !== undefined && contentType !== undefined && body.type !== 'multipart')
        headers.push(['content-type', contentType]);
      headers.push(...extra);
      return {
        kind: 'http',
        group: options.group,
        method,
        path: withKeys.path,
        headers,
        ...(body === undefined ? {} : { body }),
        framing: body === undefined && framing !== 'normal' ? 'normal' : framing,
      };
    });
}

const postMostly = fc.oneof(
  { weight: 25, arbitrary: fc.constant('POST') },
  { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
);
const getMostly = fc.oneof(
  { weight: 25, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'OPTIONS') },
);

const chatArb = keyedRequestArb({
  group: 'chat',
  methods: postMostly,
  path: pathVariantArb('/v1/chat/completions'),
  body: jsonBodyArb(chatValidArb),
});

const embeddingsArb = keyedRequestArb({
  group: 'embeddings',
  methods: postMostly,
  path: pathVariantArb('/v1/embeddings'),
  body: jsonBodyArb(embeddingsValidArb),
});

const imagesArb = keyedRequestArb({
  group: 'images',
  methods: postMostly,
  path: pathVariantArb('/v1/images/generations'),
  body: jsonBodyArb(imagesValidArb),
});

const speechArb = keyedRequestArb({
  group: 'speech',
  methods: postMostly,
  path: pathVariantArb('/v1/audio/speech'),
  body: jsonBodyArb(speechValidArb),
});

const balanceArb = keyedRequestArb({
  group: 'balance',
  methods: getMostly,
  path: fc.oneof(
    { weight: 5, arbitrary: pathVariantArb('/v1/balance') },
    { weight: 1, arbitrary: fc.constantFrom('/v1/balance?currency=USD', '/v1/balance/extra') },
  ),
});

const daysArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 90 }).map(String) },
  { weight: 3, arbitrary: hostileNumberArb.map((n) => (typeof n === 'number' ? String(n) : n.text)) },
  { weight: 2, arbitrary: nanLikeArb },
  { weight: 1, arbitrary: unicodeStringArb },
);

const usageArb = keyedRequestArb({
  group: 'usage',
  methods: getMostly,
  path: fc.oneof(
    { weight: 2, arbitrary: pathVariantArb('/v1/usage') },
    { weight: 5, arbitrary: daysArb.map((d) => `/v1/usage?days=${pct(d)}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(daysArb, daysArb).map(([a, b]) => `/v1/usage?days=${pct(a)}&days=${pct(b)}`),
    },
  ),
});

// --- transcriptions (multipart) ----------------------------------------------------------------

const audioPartArb: fc.Arbitrary<MultipartPart> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({ seconds: fc.constantFrom(0.5, 1, 3, 10), type: fc.constantFrom<'wav' | 'mp3'>('wav', 'mp3') })
      .map(({ seconds, type }) => ({
        name: 'file',
        filename: `speech.${type}`,
        contentType: type === 'wav' ? 'audio/wav' : 'audio/mpeg',
        content: { type, seconds },
      })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<MultipartPart>(
      { name: 'file', filename: 'a.png', contentType: 'image/png', content: { type: 'png' } },
      {
        name: 'file',
        filename: 'a.txt',
        contentType: 'text/plain',
        content: { type: 'text', text: 'hello' },
      },
      { name: 'file', filename: 'a.wav', contentType: 'audio/wav', content: { type: 'text', text: '' } },
      { name: 'file', filename: 'x.mp3', contentType: 'audio/mpeg', content: { type: 'wav', seconds: 1 } },
      { name: 'file', content: { type: 'wav', seconds: 1 } },
      { name: 'audio', filename: 'a.wav', contentType: 'audio/wav', content: { type: 'wav', seconds: 1 } },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ bytes: fc.constantFrom(1, 44, 4_096, 300_000), seed: fc.nat() })
      .map(({ bytes, seed }) => ({
        name: 'file',
        filename: 'noise.wav',
        contentType: 'audio/wav',
        content: { type: 'garbage' as const, bytes, seed },
      })),
  },
);

const formFieldArb: fc.Arbitrary<MultipartPart> = fc.oneof(
  {
    weight: 4,
    arbitrary: modelArb('stt').map((text) => ({ name: 'model', content: { type: 'text' as const, text } })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.constantFrom('en', 'fa', 'pt-BR', 'english', '', 'e'), unicodeStringArb)
      .map((text) => ({ name: 'language', content: { type: 'text' as const, text } })),
  },
  {
    weight: 1,
    arbitrary: shortTextArb.map((text) => ({ name: 'prompt', content: { type: 'text' as const, text } })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('response_format', 'temperature', 'x', '', 'file[]', '__proto__'),
        fc.string({ maxLength: 20 }),
      )
      .map(([name, text]) => ({ name, content: { type: 'text' as const, text } })),
  },
  {
    weight: 1,
    arbitrary: longStringArb.map((text) => ({ name: 'prompt', content: { type: 'text' as const, text } })),
  },
);

const multipartBodyArb: fc.Arbitrary<{ body: BodySpec; contentType: string | undefined }> = fc
  .record({
    parts: fc.tuple(fc.array(formFieldArb, { maxLength: 3 }), fc.array(audioPartArb, { maxLength: 2 })),
    boundary: fc.oneof(
      { weight: 8, arbitrary: fc.constant('----fuzzboundary7MA4YWxkTrZu0gW') },
      { weight: 1, arbitrary: fc.constantFrom('x', 'a'.repeat(100), '"quoted"', 'with space') },
    ),
    keep: fc.oneof(
      { weight: 8, arbitrary: fc.constant(1) },
      { weight: 2, arbitrary: fc.constantFrom(0, 0.1, 0.5, 0.9, 0.99) },
    ),
    unterminated: fc.oneof(
      { weight: 9, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
    declared: fc.oneof(
      { weight: 12, arbitrary: fc.constant<'same' | 'none' | 'other' | 'missing' | 'json'>('same') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<'same' | 'none' | 'other' | 'missing' | 'json'>(
          'none',
          'other',
          'missing',
          'json',
        ),
      },
    ),
  })
  .map(({ parts: [fields, files], boundary, keep, unterminated, declared }) => {
    const contentType =
      declared === 'same'
        ? `multipart/form-data; boundary=${boundary}`
        : declared === 'none'
          ? 'multipart/form-data'
          : declared === 'other'
            ? 'multipart/form-data; boundary=somethingelse'
            : declared === 'json'
              ? 'application/json'
              : undefined;
    return {
      body: { type: 'multipart', boundary, parts: [...fields, ...files], keep, unterminated },
      contentType,
    };
  });

const transcriptionsArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: postMostly,
    path: pathVariantArb('/v1/audio/transcriptions'),
    carriers: carriersArb,
    multipart: fc.oneof(
      { weight: 9, arbitrary: multipartBodyArb },
      {
        weight: 1,
        arbitrary: jsonBodyArb(fc.record({ model: modelArb('stt') })).map((body) => ({
          body,
          contentType: 'application/json' as string | undefined,
        })),
      },
    ),
    extra: extraHeadersArb,
    framing: framingArb,
  })
  .map(({ method, path, carriers, multipart, extra, framing }): FuzzRequest => {
    const withKeys = applyCarriers(path, carriers);
    const headers: Array<[string, string]> = [...withKeys.headers];
    if (multipart.contentType !== undefined) headers.push(['content-type', multipart.contentType]);
    headers.push(...extra);
    return {
      kind: 'http',
      group: 'transcriptions',
      method,
      path: withKeys.path,
      headers,
      ...(multipart.body === undefined ? {} : { body: multipart.body }),
      framing: multipart.body === undefined ? 'normal' : framing,
    };
  });

// --- videos ------------------------------------------------------------------------------------

const videoIdArb = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 2 }).map((i) => `{{video:own:${i}}}`) },
  { weight: 2, arbitrary: fc.constant('{{video:foreign}}') },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom('video_nope', 'vid_', '', '%2F', '..', 'a'.repeat(300), '%00', 'null', '{}'),
      fc.string({ maxLength: 30 }).map(pct),
    ),
  },
);

const rangeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'bytes=0-99',
      'bytes=100-',
      'bytes=-500',
      'bytes=0-0',
      'bytes=999999999-',
      'bytes=5-1',
      'bytes=0-1,5-9',
      'bytes=abc',
      'items=0-1',
      'bytes=-0',
      'bytes=18446744073709551616-',
      '',
    ),
  },
);

/** Create and list use the body and query; get, content and delete a video id. */
const videosArb: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    weight: 4,
    arbitrary: keyedRequestArb({
      group: 'videos',
      methods: postMostly,
      path: pathVariantArb('/v1/videos'),
      body: jsonBodyArb(videoValidArb),
    }),
  },
  {
    weight: 2,
    arbitrary: keyedRequestArb({
      group: 'videos',
      methods: getMostly,
      path: fc.oneof(
        fc.constant('/v1/videos'),
        fc
          .oneof(
            fc.integer({ min: 1, max: 100 }).map(String),
            nanLikeArb,
            fc.constantFrom('0', '101', '-1', '1e3'),
          )
          .map((l) => `/v1/videos?limit=${pct(l)}`),
      ),
    }),
  },
  {
    weight: 6,
    arbitrary: fc
      .record({
        id: videoIdArb,
        action: fc.constantFrom('get', 'get', 'content', 'content', 'delete'),
        range: rangeArb,
        request: keyedRequestArb({ group: 'videos', methods: fc.constant('GET'), path: fc.constant('') }),
      })
      .map(({ id, action, range, request }): FuzzRequest => {
        if (request.kind !== 'http') return request;
        // The own videos are those of the account of the first good key the request carries.
        const keyIndex =
          /\{\{key:good:(\d+)\}\}/.exec(JSON.stringify(request.headers) + request.path)?.[1] ?? '0';
        const resolvedId = id.replace('{{video:own:', `{{video:own:${keyIndex}:`);
        // The keyed request was built on an empty path: what it holds is the `?key=` query, if any.
        const path = `/v1/videos/${resolvedId}${action === 'content' ? '/content' : ''}${request.path}`;
        const headers =
          range === undefined ? request.headers : [...request.headers, ['range', range] as const];
        return { ...request, method: action === 'delete' ? 'DELETE' : 'GET', path, headers };
      }),
  },
);

// --- models (public) ---------------------------------------------------------------------------

const modelIdPathArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ALL_MODELS) },
  { weight: 4, arbitrary: fc.constantFrom(...ALL_MODELS).map((id) => id.replace('/', '%2F')) },
  { weight: 1, arbitrary: fc.constantFrom(...ALL_MODELS).map((id) => id.replace('/', '%252F')) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'nope/model',
      'demo',
      'demo/',
      'demo//chat',
      '%2F',
      '%',
      '%zz',
      '..%2F..%2Fetc%2Fpasswd',
      '%00',
      'demo%2Fchat%2F',
      'a'.repeat(5_000),
      'gpt5',
      'sonnet',
    ),
  },
  { weight: 1, arbitrary: unicodeStringArb.map(pct) },
);

const modelsArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: getMostly,
    path: fc.oneof(
      { weight: 1, arbitrary: pathVariantArb('/v1/models') },
      { weight: 3, arbitrary: modelIdPathArb.map((id) => `/v1/models/${id}`) },
    ),
    carriers: fc.oneof(fc.constant([]), carriersArb),
    extra: extraHeadersArb,
  })
  .map(({ method, path, carriers, extra }): FuzzRequest => {
    const withKeys = applyCarriers(path, carriers);
    return {
      kind: 'http',
      group: 'models',
      method,
      path: withKeys.path,
      headers: [...withKeys.headers, ...extra],
      framing: 'normal',
    };
  });

// --- operator API ------------------------------------------------------------------------------

const adminAuthArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Array<[string, string]>>([['authorization', 'Bearer {{admin}}']]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [],
      [['authorization', 'Bearer wrong-token-0123456789abcdef']],
      [['authorization', 'bearer {{admin}}']],
      [['authorization', '{{admin}}']],
      [['x-api-key', '{{admin}}']],
      [['authorization', 'Bearer {{key:good:0}}']],
      [
        ['authorization', 'Bearer {{admin}}'],
        ['authorization', 'Bearer nope'],
      ],
      [['authorization', `Bearer ${'t'.repeat(4_000)}`]],
    ),
  },
);

const accountIdArb = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2 }).map((i) => `{{account:scratch:${i}}}`) },
  { weight: 2, arbitrary: fc.nat({ max: 3 }).map((i) => `{{account:main:${i}}}`) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom('acct_nope', '', 'a'.repeat(65), '%2F', '..', 'null', '%00'),
      fc.string({ maxLength: 30 }).map(pct),
    ),
  },
);
/** Accounts whose status may change: the scratch ones (and ids that do not exist). */
const mutableAccountIdArb = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2 }).map((i) => `{{account:scratch:${i}}}`) },
  { weight: 2, arbitrary: fc.constantFrom('acct_nope', '', 'a'.repeat(65), '%2F', '..', '%00') },
);
/** Keys the operator API may change or delete: the scratch ones (and ids that do not exist). */
const keyIdArb = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 3 }).map((i) => `{{keyid:scratch:${i}}}`) },
  { weight: 2, arbitrary: fc.constantFrom('key_nope', '', 'k'.repeat(65), '%2F') },
);

const accountBodyArb = merged(
  fc.record({
    email: fc.oneof(
      fc.uuid().map((u) => `fuzz-${u}@example.test`),
      fc.constantFrom('not-an-email', '', 'a@b', `${'x'.repeat(300)}@example.test`, 'UPPER@EXAMPLE.TEST'),
      fc.emailAddress(),
    ),
  }),
  optional({ name: fc.oneof(shortTextArb, fc.constant(null)) }),
);

const keySettingsArb = optional({
  name: shortTextArb,
  rate_limit: fc.oneof(fc.integer({ min: 1, max: 3_000 }), fc.constantFrom(0, 3_001, -1, 1.5)),
  monthly_cap: fc.oneof(
    fc.double({ min: 0.000001, max: 1e6, noNaN: true }),
    fc.constant(null),
    fc.constantFrom(0, 1e13, 0.0000001),
  ),
  allowed_ips: fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('10.0.0.0/8', 'localhost', '')), {
    maxLength: 4,
  }),
  allowed_models: fc.oneof(
    fc.constant(null),
    fc.array(fc.constantFrom(...ALL_MODELS, 'Bad Model'), { minLength: 1, maxLength: 3 }),
  ),
  identity_injection: fc.boolean(),
  expires_at: fc.oneof(
    fc.constant(null),
    fc.constantFrom(
      '2030-01-31T00:00:00Z',
      '2001-01-01T00:00:00Z',
      '2030-02-31T00:00:00Z',
      'tomorrow',
      '2030-01-31',
    ),
  ),
  active: fc.boolean(),
});

const topUpBodyArb = merged(
  fc.record({
    amount: fc.oneof(
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.constantFrom(0.000001, 1.0000001, 1e12, 1e12 + 1, 0, -5),
      hostileNumberArb,
    ),
  }),
  optional({ reference: shortTextArb }),
);

interface RouteSpec {
  readonly method: string;
  readonly path: fc.Arbitrary<string>;
  readonly body?: fc.Arbitrary<BodySpec | undefined>;
  readonly headers?: fc.Arbitrary<Array<[string, string]>>;
  /**
   * Ends the session it is sent with (sign-out, password change, a new sign-in over it): sent with
   * the disposable sessions instead of the ones the run relies on (`victim`, `operator2`).
   */
  readonly endsSession?: boolean;
}

/** Moves a request that may end its session onto the disposable sessions. */
function disposableSessions(headers: Array<[string, string]>): Array<[string, string]> {
  return headers.map(([name, value]) => [
    name,
    value
      .replace('{{session:holder}}', '{{session:victim}}')
      .replace('{{csrf:holder}}', '{{csrf:victim}}')
      .replace('{{session:operator}}', '{{session:operator2}}')
      .replace('{{csrf:operator}}', '{{csrf:operator2}}'),
  ]);
}

const adminRoutes: RouteSpec[] = [
  { method: 'POST', path: fc.constant('/admin/v1/accounts'), body: jsonBodyArb(accountBodyArb) },
  {
    method: 'GET',
    path: fc
      .oneof(fc.constantFrom('{{email:holder}}', 'nobody@example.test', '', 'x'), unicodeStringArb)
      .map((e) => `/admin/v1/accounts?email=${e.startsWith('{{') ? e : pct(e)}`),
  },
  { method: 'GET', path: accountIdArb.map((id) => `/admin/v1/accounts/${id}`) },
  {
    method: 'PATCH',
    path: mutableAccountIdArb.map((id) => `/admin/v1/accounts/${id}`),
    body: jsonBodyArb(fc.record({ status: fc.constantFrom('active', 'inactive', 'deleted') })),
  },
  {
    method: 'POST',
    path: accountIdArb.map((id) => `/admin/v1/accounts/${id}/topups`),
    body: jsonBodyArb(topUpBodyArb),
    headers: fc.oneof(
      fc.constant<Array<[string, string]>>([]),
      fc
        .constantFrom('idem-1', 'idem-2', '', 'x'.repeat(500))
        .map((k): Array<[string, string]> => [['idempotency-key', k]]),
    ),
  },
  {
    method: 'GET',
    path: fc
      .tuple(
        accountIdArb,
        fc.oneof(fc.constant(''), fc.constantFrom('?limit=1', '?limit=0', '?limit=500', '?limit=x')),
      )
      .map(([id, q]) => `/admin/v1/accounts/${id}/ledger${q}`),
  },
  {
    method: 'POST',
    path: accountIdArb.map((id) => `/admin/v1/accounts/${id}/keys`),
    body: jsonBodyArb(keySettingsArb),
  },
  { method: 'GET', path: accountIdArb.map((id) => `/admin/v1/accounts/${id}/keys`) },
  { method: 'PATCH', path: keyIdArb.map((id) => `/admin/v1/keys/${id}`), body: jsonBodyArb(keySettingsArb) },
  { method: 'DELETE', path: keyIdArb.map((id) => `/admin/v1/keys/${id}`) },
  {
    method: 'POST',
    path: accountIdArb.map((id) => `/admin/v1/accounts/${id}/invitations`),
    body: jsonBodyArb(optional({ purpose: fc.constantFrom('invite', 'reset', 'other') })),
  },
];

function routeArb(
  group: 'admin' | 'console',
  routes: RouteSpec[],
  auth: fc.Arbitrary<Array<[string, string]>>,
) {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.oneof(
        { weight: 15, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS') },
      ),
      auth,
      extra: extraHeadersArb,
      contentType: jsonContentTypeArb,
      framing: framingArb,
      seed: fc.nat(),
    })
    .chain(({ route, otherMethod, auth: authHeaders, extra, contentType, framing }) =>
      fc
        .tuple(route.path, route.body ?? fc.constant(undefined), route.headers ?? fc.constant([]))
        .map(([path, body, routeHeaders]): FuzzRequest => {
          const authFor = route.endsSession === true ? disposableSessions(authHeaders) : authHeaders;
          const headers: Array<[string, string]> = [...authFor, ...routeHeaders];
          if (body !== undefined) headers.push(['content-type', contentType]);
          headers.push(...extra);
          return {
            kind: 'http',
            group,
            method: otherMethod ?? route.method,
            path,
            headers,
            ...(body === undefined ? {} : { body }),
            framing: body === undefined ? 'normal' : framing,
          };
        }),
    );
}

const adminArb = routeArb('admin', adminRoutes, adminAuthArb);

// --- console API -------------------------------------------------------------------------------

/**
 * Session variants: `holder` is the main holder session (never given the right CSRF token for the
 * calls that end sessions or change the password, so it lasts the run), `victim` a second holder
 * whose sessions may end, `operator` the operator session.
 */
type Who = 'holder' | 'victim' | 'operator';

const consoleAuthArb: fc.Arbitrary<Array<[string, string]>> = fc
  .record({
    who: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom<Who | 'none' | 'garbage'>('holder', 'operator') },
      { weight: 2, arbitrary: fc.constantFrom<Who | 'none' | 'garbage'>('victim', 'none', 'garbage') },
    ),
    csrf: fc.oneof(
      { weight: 6, arbitrary: fc.constant<'right' | 'wrong' | 'none' | 'other'>('right') },
      {
        weight: 2,
        arbitrary: fc.constantFrom<'right' | 'wrong' | 'none' | 'other'>('wrong', 'none', 'other'),
      },
    ),
    requestedWith: fc.oneof(fc.constant(undefined), fc.constantFrom('console', 'XMLHttpRequest', '')),
  })
  .map(({ who, csrf, requestedWith }) => {
    const headers: Array<[string, string]> = [];
    if (who === 'garbage') headers.push(['cookie', 'gw_session=not-a-session; other=1']);
    else if (who !== 'none') {
      headers.push(['cookie', `gw_session={{session:${who}}}`]);
      if (csrf === 'right') headers.push(['x-csrf-token', `{{csrf:${who}}}`]);
      else if (csrf === 'wrong') headers.push(['x-csrf-token', 'wrong-csrf-token']);
      else if (csrf === 'other')
        headers.push(['x-csrf-token', `{{csrf:${who === 'operator' ? 'holder' : 'operator'}}}`]);
    }
    if (requestedWith !== undefined) headers.push(['x-requested-with', requestedWith]);
    return headers;
  });

const consoleKeyIdArb = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 1 }).map((i) => `{{keyid:holder:${i}}}`) },
  { weight: 2, arbitrary: fc.constantFrom('{{keyid:scratch:0}}', 'key_nope', '', 'k'.repeat(100)) },
);

const dayArb = fc.oneof(
  fc.constantFrom('2025-01-01', '2030-12-31', '2025-02-30', '1999-13-01', 'today', '', '2025-1-1'),
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
);

const consoleRoutes: RouteSpec[] = [
  {
    method: 'POST',
    endsSession: true,
    path: fc.constant('/console/api/session'),
    body: jsonBodyArb(
      fc.record({
        email: fc.oneof(
          fc.constantFrom('{{email:holder}}', '{{email:victim}}', 'nobody@example.test'),
          fc.emailAddress(),
        ),
        password: fc.oneof(
          fc.constantFrom('{{password:holder}}', 'wrong-password-123'),
          fc.string({ maxLength: 40 }),
        ),
      }),
    ),
  },
  {
    method: 'POST',
    endsSession: true,
    path: fc.constant('/console/api/operator-session'),
    body: jsonBodyArb(fc.record({ token: fc.constantFrom('{{admin}}', 'wrong-token', '') })),
  },
  { method: 'GET', path: fc.constant('/console/api/session') },
  { method: 'DELETE', endsSession: true, path: fc.constant('/console/api/session') },
  { method: 'DELETE', endsSession: true, path: fc.constant('/console/api/sessions') },
  {
    method: 'POST',
    endsSession: true,
    path: fc.constant('/console/api/password/set'),
    body: jsonBodyArb(
      fc.record({
        token: fc.oneof(fc.constantFrom('nope', '', 'a'.repeat(200)), fc.base64String({ maxLength: 60 })),
        password: fc.string({ maxLength: 30 }),
      }),
    ),
  },
  {
    method: 'PUT',
    endsSession: true,
    path: fc.constant('/console/api/password'),
    body: jsonBodyArb(
      fc.record({
        current_password: fc.constantFrom('{{password:victim}}', 'wrong-password-123', ''),
        new_password: fc.oneof(fc.constant('{{password:victim}}'), fc.string({ maxLength: 30 })),
      }),
    ),
  },
  {
    method: 'GET',
    path: fc
      .oneof(fc.constantFrom('', '?days=7', '?days=30', '?days=90', '?days=8', '?days=x', '?days=-1'))
      .map((q) => `/console/api/overview${q}`),
  },
  { method: 'GET', path: fc.constant('/console/api/keys') },
  { method: 'POST', path: fc.constant('/console/api/keys'), body: jsonBodyArb(keySettingsArb) },
  {
    method: 'PATCH',
    path: consoleKeyIdArb.map((id) => `/console/api/keys/${id}`),
    body: jsonBodyArb(keySettingsArb),
  },
  // Deleting is tried on ids the holder does not own, and on unknown ones, so the holder keeps its keys.
  {
    method: 'DELETE',
    path: fc.constantFrom('/console/api/keys/key_nope', '/console/api/keys/{{keyid:scratch:1}}'),
  },
  {
    method: 'GET',
    path: fc
      .record({
        from: fc.option(dayArb),
        to: fc.option(dayArb),
        model: fc.option(fc.constantFrom('demo/chat', 'x', '')),
        format: fc.option(fc.constantFrom('csv', 'json', 'xml')),
      })
      .map(({ from, to, model, format }) => {
        const q = new URLSearchParams();
        if (from !== null) q.set('from', from);
        if (to !== null) q.set('to', to);
        if (model !== null) q.set('model', model);
        if (format !== null) q.set('format', format);
        const text = q.toString();
        return `/console/api/usage${text === '' ? '' : `?${text}`}`;
      }),
  },
  {
    method: 'GET',
    path: fc
      .tuple(
        fc.option(fc.constantFrom('1', '0', '200', '201', 'x', '50')),
        fc.option(fc.constantFrom('abc', '', 'eyJ4IjoxfQ', '%00')),
      )
      .map(([limit, before]) => {
        const parts = [
          limit === null ? '' : `limit=${limit}`,
          before === null ? '' : `before=${before}`,
        ].filter(Boolean);
        return `/console/api/ledger${parts.length > 0 ? `?${parts.join('&')}` : ''}`;
      }),
  },
  { method: 'GET', path: fc.constant('/console/api/models') },
  { method: 'GET', path: fc.constant('/console/api/videos') },
  {
    method: 'GET',
    path: fc.constantFrom(
      '/console/api/videos/{{video:holder}}/content',
      '/console/api/videos/video_nope/content',
    ),
    headers: rangeArb.map((r): Array<[string, string]> => (r === undefined ? [] : [['range', r]])),
  },
  {
    method: 'GET',
    path: fc
      .record({
        q: fc.option(fc.oneof(fc.constantFrom('fuzz', '', '%', '_', 'EXAMPLE'), unicodeStringArb)),
        limit: fc.option(fc.constantFrom('1', '100', '0', '101', 'x')),
        cursor: fc.option(fc.constantFrom('abc', '', 'eyJ4IjoxfQ')),
      })
      .map(({ q, limit, cursor }) => {
        const params = new URLSearchParams();
        if (q !== null) params.set('q', q);
        if (limit !== null) params.set('limit', limit);
        if (cursor !== null) params.set('cursor', cursor);
        const text = params.toString();
        return `/console/api/accounts${text === '' ? '' : `?${text}`}`;
      }),
  },
  { method: 'POST', path: fc.constant('/console/api/accounts'), body: jsonBodyArb(accountBodyArb) },
  { method: 'GET', path: accountIdArb.map((id) => `/console/api/accounts/${id}`) },
  {
    method: 'PATCH',
    path: mutableAccountIdArb.map((id) => `/console/api/accounts/${id}`),
    body: jsonBodyArb(fc.record({ status: fc.constantFrom('active', 'inactive', 'x') })),
  },
  {
    method: 'POST',
    path: accountIdArb.map((id) => `/console/api/accounts/${id}/topups`),
    body: jsonBodyArb(topUpBodyArb),
    // Required here (the page sends one per submission); now and then left out, or out of bounds.
    headers: fc.oneof(
      fc.constant<Array<[string, string]>>([]),
      fc
        .constantFrom('console-1', 'console-2', '', 'x'.repeat(500))
        .map((k): Array<[string, string]> => [['idempotency-key', k]]),
    ),
  },
  {
    method: 'POST',
    path: accountIdArb.map((id) => `/console/api/accounts/${id}/invitations`),
    body: jsonBodyArb(optional({ purpose: fc.constantFrom('invite', 'reset', 'x') })),
  },
  {
    method: 'GET',
    path: fc
      .tuple(
        accountIdArb,
        fc.constantFrom('keys', 'ledger', 'usage', 'ledger?limit=0', 'usage?from=2025-13-01'),
      )
      .map(([id, what]) => `/console/api/accounts/${id}/${what}`),
  },
  { method: 'GET', path: fc.constant('/console/api/queues') },
  {
    method: 'GET',
    path: fc
      .tuple(
        fc.constantFrom('image', 'speech', 'transcription', 'video', 'nope', '%2F'),
        fc.constantFrom('', '?limit=1', '?limit=0', '?offset=-1', '?limit=x&offset=x'),
      )
      .map(([name, q]) => `/console/api/queues/${name}/failed${q}`),
  },
  {
    method: 'POST',
    path: fc
      .tuple(
        fc.constantFrom('image', 'video', 'nope'),
        fc.constantFrom('1', 'job_nope', '%2F', 'x'.repeat(200)),
        fc.constantFrom('retry', 'discard'),
      )
      .map(([name, job, action]) => `/console/api/queues/${name}/failed/${job}/${action}`),
  },
];

const consoleArb = routeArb('console', consoleRoutes, consoleAuthArb);

// --- unknown paths and methods -----------------------------------------------------------------

const unknownArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.oneof(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
      fc.constantFrom('TRACE', 'PROPFIND', 'MKCOL', 'SEARCH', 'PURGE', 'LINK', 'QUERY', 'REPORT', 'LOCK'),
    ),
    path: fc.oneof(
      fc.constantFrom(
        '/',
        '/v1',
        '/v1/',
        '/v2/chat/completions',
        '/v1/chat',
        '/v1/chat/completions/extra',
        '/v1/completions',
        '/v1/images/edits',
        '/v1/audio',
        '/v1/files',
        '/admin',
        '/admin/v1',
        '/admin/v1/',
        '/admin/v1/nope',
        '/console',
        '/console/',
        '/console/keys',
        '/console/assets/nope.js',
        '/console/assets/..%2F..%2Fpackage.json',
        '/console/api',
        '/console/api/nope',
        '/healthz',
        '/readyz',
        '/metrics',
        '/favicon.ico',
        '/.env',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/v1/models/../../admin/v1/accounts',
        '//v1//models',
        '/v1/models%00',
        `/${'a'.repeat(10_000)}`,
        `/v1/${'b/'.repeat(2_000)}`,
      ),
      fc.webPath(),
      fc.string({ maxLength: 30 }).map((s) => `/${pct(s)}`),
    ),
    carriers: fc.oneof(fc.constant([]), carriersArb),
    extra: extraHeadersArb,
    body: fc.oneof(fc.constant(undefined), fc.constant<BodySpec>({ type: 'json', value: { a: 1 } })),
  })
  .map(({ method, path, carriers, extra, body }): FuzzRequest => {
    const withKeys = applyCarriers(path, carriers);
    const headers: Array<[string, string]> = [...withKeys.headers, ...extra];
    if (body !== undefined) headers.push(['content-type', 'application/json']);
    return {
      kind: 'http',
      group: 'unknown',
      method,
      path: withKeys.path,
      headers,
      ...(body === undefined ? {} : { body }),
      framing: 'normal',
    };
  });

// --- raw malformed HTTP ------------------------------------------------------------------------

const H = 'Host: {{host}}\r\n';
const RAW_CASES: ReadonlyArray<readonly [string, string]> = [
  ['lowercase method', `get /v1/models HTTP/1.1\r\n${H}\r\n`],
  ['unknown method', `FETCH /v1/models HTTP/1.1\r\n${H}\r\n`],
  ['space in URL', `GET /v1/mo dels HTTP/1.1\r\n${H}\r\n`],
  ['no leading slash', `GET v1/models HTTP/1.1\r\n${H}\r\n`],
  ['HTTP/7.1', `GET /v1/models HTTP/7.1\r\n${H}\r\n`],
  ['HTTP/1.0 without Host', 'GET /v1/models HTTP/1.0\r\n\r\n'],
  ['HTTP/1.1 without Host', 'GET /v1/balance HTTP/1.1\r\nAuthorization: Bearer {{key:good:0}}\r\n\r\n'],
  ['two Hosts', `GET /v1/models HTTP/1.1\r\n${H}${H}\r\n`],
  ['not HTTP', 'hello there\r\n\r\n'],
  ['NUL bytes', `GET /v1/models\u0000 HTTP/1.1\r\n${H}\r\n`],
  ['header without colon', `GET /v1/models HTTP/1.1\r\n${H}Bad Header x\r\n\r\n`],
  ['space before colon', `GET /v1/balance HTTP/1.1\r\n${H}Authorization : Bearer {{key:good:1}}\r\n\r\n`],
  ['obs-fold', `GET /v1/balance HTTP/1.1\r\n${H}Authorization: Bearer\r\n {{key:good:1}}\r\n\r\n`],
  ['LF only', `GET /v1/models HTTP/1.1\nHost: {{host}}\n\n`],
  ['bare CR in header', `GET /v1/models HTTP/1.1\r\n${H}X-A: a\rb\r\n\r\n`],
  ['20 KB header', `GET /v1/models HTTP/1.1\r\n${H}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ['100 KB URL', `GET /v1/models/${'a'.repeat(100_000)} HTTP/1.1\r\n${H}\r\n`],
  ['absolute-form URL', `GET http://{{host}}/v1/models HTTP/1.1\r\n${H}\r\n`],
  ['malformed absolute URL', `GET http://[::1/v1/models HTTP/1.1\r\n${H}\r\n`],
  ['asterisk-form', `OPTIONS * HTTP/1.1\r\n${H}\r\n`],
  ['CONNECT', `CONNECT {{host}} HTTP/1.1\r\n${H}\r\n`],
  [
    'upgrade to websocket',
    `GET /v1/models HTTP/1.1\r\n${H}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
  ],
  [
    'upgrade to h2c',
    `GET /v1/models HTTP/1.1\r\n${H}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
  ],
  ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ['TLS hello', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003'],
  [
    'Content-Length with Transfer-Encoding',
    `POST /v1/chat/completions HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  ],
  [
    'two Content-Lengths',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
  ],
  [
    'malformed chunk',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
  ],
  [
    'chunk size overflow',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n`,
  ],
  [
    'chunk extension junk',
    `POST /v1/chat/completions HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:2}}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
  ],
  [
    'Transfer-Encoding gzip',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}`,
  ],
  [
    'Transfer-Encoding twice',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  ],
  ['negative Content-Length', `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`],
  [
    'Content-Length overflow',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Content-Length: 99999999999999999999999\r\n\r\n{}`,
  ],
  [
    'stalled JSON body',
    `POST /v1/chat/completions HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:3}}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":"demo/chat"`,
  ],
  [
    'stalled multipart upload',
    `POST /v1/audio/transcriptions HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:4}}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF`,
  ],
  [
    'multipart without boundary parameter',
    `POST /v1/audio/transcriptions HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:5}}\r\nContent-Type: multipart/form-data\r\nContent-Length: 10\r\n\r\n0123456789`,
  ],
  [
    'pipelined requests',
    `GET /v1/models HTTP/1.1\r\n${H}\r\nGET /v1/balance HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:6}}\r\n\r\nGARBAGE\r\n\r\n`,
  ],
  [
    'body on GET',
    `GET /v1/balance HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:7}}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
  ],
  [
    'Expect 100-continue then body',
    `POST /v1/embeddings HTTP/1.1\r\n${H}Authorization: Bearer {{key:good:8}}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 44\r\n\r\n{"model":"demo/embedding","input":"hello!!"}`,
  ],
  ['Expect unknown', `GET /v1/models HTTP/1.1\r\n${H}Expect: 200-ok\r\n\r\n`],
  ['HEAD with body', `HEAD /v1/models HTTP/1.1\r\n${H}Content-Length: 3\r\n\r\nabc`],
  ['percent-encoded NUL', `GET /v1/models/demo%00chat HTTP/1.1\r\n${H}\r\n`],
  ['malformed percent', `GET /v1/models/%zz HTTP/1.1\r\n${H}\r\n`],
  ['UTF-8 in path', `GET /v1/models/\u00c3\u00a9 HTTP/1.1\r\n${H}\r\n`],
  ['invalid UTF-8 in header', `GET /v1/balance HTTP/1.1\r\n${H}X-Api-Key: hk-\u00ff\u00fe\r\n\r\n`],
  ['HTTP/0.9', 'GET /v1/models\r\n'],
];

const rawArb: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom(...RAW_CASES)
  .map(([name, text]): FuzzRequest => ({ kind: 'raw', group: 'raw', name, text }));

// --- the whole mix -----------------------------------------------------------------------------

/** Every group, weighted roughly by how much surface it has. */
export const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 6, arbitrary: modelsArb },
  { weight: 16, arbitrary: chatArb },
  { weight: 6, arbitrary: embeddingsArb },
  { weight: 6, arbitrary: imagesArb },
  { weight: 5, arbitrary: speechArb },
  { weight: 7, arbitrary: transcriptionsArb },
  { weight: 4, arbitrary: balanceArb },
  { weight: 4, arbitrary: usageArb },
  { weight: 8, arbitrary: videosArb },
  { weight: 10, arbitrary: adminArb },
  { weight: 12, arbitrary: consoleArb },
  { weight: 5, arbitrary: unknownArb },
  { weight: 6, arbitrary: rawArb },
);
