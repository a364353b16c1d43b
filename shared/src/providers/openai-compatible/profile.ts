import type { ChatRequest, ReasoningEffort, ResponseFormat } from '../chat-types.ts';

/** Every `reasoning_effort` value of the gateway's request table. */
export const ALL_REASONING_EFFORTS: readonly ReasoningEffort[] = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
];

/** Request fields a profile may declare unsupported (rejected up front with a clear message). */
export type OptionalChatField = Exclude<
  keyof ChatRequest,
  'model' | 'messages' | 'stream' | 'stream_options'
>;

/**
 * What makes one OpenAI-compatible upstream differ from another. The adapter is composed from
 * this data by `createOpenAICompatibleAdapter` (no subclassing): the transforms read the profile,
 * never the provider's name.
 *
 * URL convention: the configured base URL INCLUDES the API version path, so every upstream is
 * called at `<baseUrl>/chat/completions` and `<baseUrl>/embeddings` (e.g. `https://api.openai.com/v1`,
 * `https://api.deepseek.com`, `https://api.x.ai/v1`, `https://api.mistral.ai/v1`,
 * `https://api.groq.com/openai/v1`).
 */
export interface OpenAICompatibleProfile {
  /** Provider name used in client-facing messages, e.g. `Mistral`. */
  readonly name: string;
  /** The base URL to configure when none is given (documented public endpoint, version included). */
  readonly defaultBaseUrl: string;
  /**
   * Where the output-token cap goes: OpenAI's reasoning models reject `max_tokens`, Mistral and
   * DeepSeek know only `max_tokens`; `as-given` forwards whichever the client sent.
   */
  readonly maxTokensField: 'max_tokens' | 'max_completion_tokens' | 'as-given';
  /**
   * Whether the upstream accepts `stream_options: {include_usage: true}`. When false (Mistral,
   * whose schema forbids extra fields) the upstream must report usage on its own, on the last chunk.
   */
  readonly streamOptions: boolean;
  /** How `developer` messages are sent: as is, or as `system` for upstreams without that role. */
  readonly developerRole: 'developer' | 'system';
  /** Which messages may carry `name`: Groq rejects `messages[].name`, Mistral allows it on tool messages only. */
  readonly messageNames: 'all' | 'tool' | 'none';
  /**
   * Which message content the upstream takes: `all` content parts; `images` (text and `image_url`
   * parts, no `file`); `text-as-string` (DeepSeek answers 400 "invalid type: sequence, expected a
   * string" to any part list, so text parts are joined into one string and other parts rejected).
   */
  readonly contentParts: 'all' | 'images' | 'text-as-string';
  /** The upstream's name for the sampling seed (Mistral: `random_seed`). */
  readonly seedField: 'seed' | 'random_seed';
  /** `reasoning_effort` values the upstream documents; others are rejected, and an empty list rejects the field. */
  readonly reasoningEfforts: readonly ReasoningEffort[];
  /** `response_format` types the upstream documents. */
  readonly responseFormats: readonly ResponseFormat['type'][];
  /** `web-search-options`: `web_search: true` becomes OpenAI's `web_search_options`; `unsupported`: rejected. */
  readonly webSearch: 'web-search-options' | 'unsupported';
  /** Optional fields the upstream documents as unsupported; sent with a non-default value they are rejected. */
  readonly unsupportedFields: readonly OptionalChatField[];
  /**
   * Fields the upstream rejects that change neither the answer nor its price (an end-user id for
   * abuse tracking): dropped instead of failing the request. Listed per profile so it is visible.
   */
  readonly droppedFields: readonly OptionalChatField[];
  /**
   * Whether `completion_tokens` already includes `reasoning_tokens` (OpenAI convention) or not
   * (xAI reports them on top). Used only when `total_tokens` does not tell which one holds.
   */
  readonly reasoningInCompletion: boolean;
  /** Embeddings support; absent when the upstream has no embeddings endpoint. */
  readonly embeddings?: {
    /** Name of the output-size field (Mistral: `output_dimension`). */
    readonly dimensionsField: 'dimensions' | 'output_dimension';
    /** Whether to send `encoding_format: 'float'` (Mistral's schema has no such field; float is its only output). */
    readonly sendEncodingFormat: boolean;
  };
}
