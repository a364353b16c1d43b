/**
 * The gateway's own chat and embedding shapes (the common chat-completion convention of the spec),
 * and the contract every provider adapter implements: pure functions from these shapes to the
 * upstream's wire format and back. Adapters do no I/O; the gateway's upstream client sends what
 * `request` builds and feeds back what it receives.
 */

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: string | { url: string; detail?: string } }
  | { type: 'file'; file: { filename?: string; file_data?: string } };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; strict?: boolean; schema?: Record<string, unknown> };
    };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** A validated `POST /v1/chat/completions` body (the spec's table), with `model` already resolved. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  user?: string;
  tools?: Tool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  reasoning_effort?: ReasoningEffort;
  web_search?: boolean;
  web_search_options?: Record<string, unknown>;
  logprobs?: boolean;
  top_logprobs?: number;
  logit_bias?: Record<string, number>;
}

/**
 * Token usage as the gateway bills it. `outputTokens` counts every billed output token, reasoning
 * included; `reasoningTokens` is the part of it spent on reasoning; `cachedInputTokens` is the
 * part of `inputTokens` read from the provider's prompt cache (billed at `cached_input`).
 */
export interface NormalizedUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export interface Citation {
  title: string | null;
  url: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; reasoning_content?: string };
  finish_reason: FinishReason;
  logprobs: Record<string, unknown> | null;
}

/** What an adapter makes of a non-streamed answer; the gateway adds id, object, created, model, usage, service. */
export interface ChatResult {
  choices: ChatChoice[];
  citations?: Citation[];
  usage: NormalizedUsage;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string; tool_calls?: ToolCallDelta[] };
  finish_reason: FinishReason | null;
}

/** One translated stream event; the gateway adds id, object, created and model to each. */
export interface ChatChunk {
  choices: ChunkChoice[];
  citations?: Citation[];
}

/** One server-sent event as received (eventsource-parser's shape). */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Translates one upstream stream into chat chunks. `onEvent` is called per event in order (an SSE
 * event for an HTTP upstream); it throws `UpstreamStreamError` for an error event inside the
 * stream. `finish` is called after the last event and returns the usage the upstream reported
 * (undefined when it reported none).
 */
export interface ChatStreamTranslator<E = SseEvent> {
  onEvent(event: E): ChatChunk[];
  finish(): { usage: NormalizedUsage | undefined };
}

/** Where and as whom to call an upstream. */
export interface UpstreamTarget {
  /** Base URL from configuration, without trailing slash, e.g. `https://api.anthropic.com`. */
  baseUrl: string;
  apiKey: string;
  /** The route's native model id. */
  nativeModel: string;
  /** The model's own output limit from the catalogue, for upstreams that require `max_tokens`. */
  maxOutputTokens?: number;
}

/** An HTTP request to send upstream (always POST with a JSON body). */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ChatAdapter {
  request(request: ChatRequest, target: UpstreamTarget, options: { stream: boolean }): UpstreamRequest;
  response(json: unknown): ChatResult;
  stream(): ChatStreamTranslator;
}

/** A validated `POST /v1/embeddings` body. */
export interface EmbeddingRequest {
  model: string;
  input: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
}

export interface EmbeddingResult {
  /** One vector per input, in input order. */
  vectors: number[][];
  usage: { inputTokens: number };
}

export interface EmbeddingAdapter {
  request(request: EmbeddingRequest, target: UpstreamTarget): UpstreamRequest;
  /** `request` is the one `request()` was given (some upstreams report no token counts to bill by). */
  response(json: unknown, request: EmbeddingRequest): EmbeddingResult;
}

/** A provider's error body reduced to a message that is safe to show a client (no keys, no hosts). */
export type UpstreamErrorMessage = (status: number, bodyText: string) => string;

export interface ProviderAdapter {
  chat?: ChatAdapter;
  embeddings?: EmbeddingAdapter;
  errorMessage: UpstreamErrorMessage;
  /**
   * True when an error answer means the gateway's own credentials were refused even though the
   * status looks like the client's fault (Gemini answers a bad key with 400): such a failure is
   * the provider's, never blamed on the client.
   */
  isCredentialRejection?: (status: number, bodyText: string) => boolean;
}

/**
 * The request asks for something this upstream cannot do without changing its meaning or price
 * (e.g. `n > 1` where only one answer is produced). Thrown by `request()`; the client gets 400.
 */
export class UnsupportedFeatureError extends Error {
  /** The request field at fault, when there is one. */
  readonly param: string | null;
  constructor(param: string | null, message: string) {
    super(message);
    this.name = 'UnsupportedFeatureError';
    this.param = param;
  }
}

/** An error event inside an upstream stream, after the HTTP status was already 200. */
export class UpstreamStreamError extends Error {
  /** The provider's HTTP-like status for the failure (e.g. 529 overloaded, 500), for the client's `code`. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'UpstreamStreamError';
    this.status = status;
  }
}

/** An upstream answer that does not have the shape its provider documents. */
export class UpstreamProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamProtocolError';
  }
}
