/** A request log record (docs/request-log.md), as `GET /v1/requests/{id}` and the operator API answer it. */
export const requestRecordSchema = {
  type: 'object',
  description:
    'One authenticated request, as the request log keeps it. Nothing of what was asked or answered (prompt, messages, output, media) is stored.',
  additionalProperties: false,
  required: [
    'id',
    'object',
    'created',
    'account_id',
    'key_id',
    'key_last4',
    'method',
    'path',
    'endpoint',
    'model',
    'provider',
    'channel_id',
    'attempts',
    'status',
    'error_code',
    'outcome',
    'stream',
    'input_tokens',
    'output_tokens',
    'cached_tokens',
    'reasoning_tokens',
    'cost',
    'latency_ms',
    'ttft_ms',
    'ip',
  ],
  properties: {
    id: { type: 'string', description: 'The request’s `X-Request-Id`.' },
    object: { type: 'string', const: 'request' },
    created: { type: 'integer', description: 'When the request arrived (Unix seconds).' },
    account_id: { type: 'string' },
    key_id: { type: 'string' },
    key_last4: { type: 'string' },
    method: { type: 'string' },
    path: { type: 'string', description: 'The path, without its query string.' },
    endpoint: {
      type: 'string',
      description:
        '`chat`, `embeddings`, `images`, `speech`, `transcription`, `video`, `balance`, `usage`, `requests`, or `native:<prefix>`.',
    },
    model: { type: ['string', 'null'], description: 'The model as answered; null when none was resolved.' },
    provider: { type: ['string', 'null'], description: 'The provider that answered (or was tried last).' },
    channel_id: { type: ['string', 'null'], description: 'The provider channel of that attempt.' },
    attempts: { type: 'integer', description: 'Upstream attempts made (fallbacks included).' },
    status: {
      type: 'integer',
      description:
        'The HTTP status sent (499: the client left before it); a stream failing after its 200 keeps 200.',
    },
    error_code: {
      type: ['string', 'integer', 'null'],
      description: 'The error’s `code` (a mid-stream failure’s is the provider’s HTTP status), or null.',
    },
    outcome: { type: 'string', enum: ['completed', 'failed', 'client_gone'] },
    stream: { type: 'boolean' },
    input_tokens: { type: 'integer' },
    output_tokens: { type: 'integer' },
    cached_tokens: { type: 'integer' },
    reasoning_tokens: { type: 'integer' },
    cost: { type: 'number', description: 'Toman charged (0 when nothing was): the answer’s `service.cost`.' },
    latency_ms: { type: 'integer' },
    ttft_ms: {
      type: ['integer', 'null'],
      description: 'Time to the first streamed output; null for other answers.',
    },
    ip: { type: ['string', 'null'] },
  },
} as const;

export const requestListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'data', 'next_cursor'],
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: requestRecordSchema, description: 'Newest first.' },
    next_cursor: {
      type: ['string', 'null'],
      description: 'Pass as `cursor` for the next page; null on the last page.',
    },
  },
} as const;

/** The filters of `GET /admin/v1/requests` (validated by `parseRequestListQuery`). */
export const requestListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    account_id: { type: 'string', description: 'Only this account’s requests.' },
    key_id: { type: 'string', description: 'Only this key’s requests.' },
    model: { type: 'string', description: 'Only requests answered by this model (`<provider>/<model>`).' },
    status: {
      type: 'string',
      description:
        '`ok` (completed, below 400), `error` (anything else), an HTTP status (`429`) or an error code (`rate_limit_exceeded`).',
    },
    from: { type: 'string', description: 'Arrived at or after: Unix seconds or an ISO 8601 date-time.' },
    to: { type: 'string', description: 'Arrived at or before: Unix seconds or an ISO 8601 date-time.' },
    limit: { type: 'string', pattern: '^[0-9]+$', description: '1 to 200; 50 when left out.' },
    cursor: { type: 'string', description: 'The `next_cursor` of the previous page.' },
  },
} as const;
