/** The operator API's channel bodies and answers (JSON schemas: validation and the OpenAPI document). */

const channelFields = {
  provider: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description:
      'A provider id that catalogue routes name: a built-in one or a declared OpenAI-compatible one.',
  },
  name: { type: 'string', minLength: 1, maxLength: 100, description: 'Unique among channels.' },
  api_key: {
    type: 'string',
    minLength: 1,
    maxLength: 4096,
    description:
      'The upstream credential: stored encrypted, never shown again (only its last four characters).',
  },
  base_url: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: 2048,
    description: 'An http(s) URL; absent or null: the provider’s configured (official) URL.',
  },
  weight: {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    description: 'Share within its priority (default 1).',
  },
  priority: {
    type: 'integer',
    minimum: -1000000,
    maximum: 1000000,
    description: 'Lower values are tried first (default 0).',
  },
  models: {
    type: ['array', 'null'],
    maxItems: 1000,
    items: { type: 'string', minLength: 1, maxLength: 200 },
    description: 'Catalogue model ids of its provider it may serve; null: all of them.',
  },
  enabled: { type: 'boolean', description: 'Default true.' },
} as const;

export const channelCreateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['provider', 'name', 'api_key'],
  properties: channelFields,
} as const;

export const channelPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: channelFields,
} as const;

export const channelSchema = {
  type: 'object',
  description: 'One upstream credential of one provider, with its routing weight and its health now.',
  additionalProperties: false,
  required: [
    'id',
    'object',
    'provider',
    'name',
    'base_url',
    'key_last4',
    'weight',
    'priority',
    'models',
    'enabled',
    'status',
    'status_reason',
    'cooldown_until',
    'source',
    'created_at',
    'updated_at',
    'requests',
    'failures',
    'p50_latency_ms',
  ],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['channel'] },
    provider: { type: 'string' },
    name: { type: 'string' },
    base_url: { type: ['string', 'null'] },
    key_last4: { type: 'string' },
    weight: { type: 'integer' },
    priority: { type: 'integer' },
    models: { type: ['array', 'null'], items: { type: 'string' } },
    enabled: { type: 'boolean' },
    status: { type: 'string', enum: ['healthy', 'cooling_down', 'auto_disabled', 'disabled'] },
    status_reason: { type: ['string', 'null'] },
    cooldown_until: { type: ['string', 'null'], format: 'date-time' },
    source: { type: 'string', enum: ['api', 'environment'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    requests: { type: 'integer', description: 'Upstream attempts in the last hour, every replica.' },
    failures: { type: 'integer', description: 'Of those, the failed ones.' },
    p50_latency_ms: { type: ['integer', 'null'], description: 'Median attempt latency in the last hour.' },
  },
} as const;

export const channelListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data'],
  properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: channelSchema } },
} as const;

export const channelTestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'latency_ms'],
  properties: {
    ok: { type: 'boolean' },
    status: { type: 'integer', description: 'The provider’s HTTP status, when it answered.' },
    latency_ms: { type: 'integer' },
    error: { type: 'string', description: 'Why it failed (never the credential).' },
  },
} as const;

export const deleteChannelQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    force: {
      type: 'string',
      enum: ['true', 'false'],
      description: '`true` deletes a channel with video renders in flight, failing them uncharged.',
    },
  },
} as const;
