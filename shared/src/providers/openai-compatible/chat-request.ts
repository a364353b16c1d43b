/**
 * Gateway chat request -> OpenAI-compatible `POST <baseUrl>/chat/completions` body.
 *
 * Shapes followed: OpenAI's Create chat completion request (openai-node
 * `ChatCompletionCreateParams`, incl. `max_completion_tokens`, `stream_options.include_usage`,
 * `web_search_options`, `reasoning_effort`); DeepSeek's Create Chat Completion (`max_tokens`,
 * `response_format` text/json_object, `stream_options`); xAI's chat completions reference and
 * reasoning guide (`reasoning_effort` low/high on grok-3-mini, none/low/medium/high on newer
 * models); Mistral's ChatCompletionRequest (`random_seed`, `max_tokens`, no `stream_options`,
 * extra fields answered 422 `extra_forbidden`, `reasoning_effort` on adjustable models); Groq's
 * OpenAI-compatibility page (`logprobs`, `logit_bias`, `top_logprobs`, `messages[].name` and
 * `n` != 1 answered 400).
 *
 * The body is already in the provider's format, so the mapping is mostly a pass-through: the
 * route's native model id, the profile's renames, the gateway's `web_search` extension mapped or
 * rejected, and usage always requested when streaming (the gateway bills every request).
 */
import type { ChatMessage, ChatRequest } from '../chat-types.ts';
import type { OpenAICompatibleProfile } from './profile.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';

/** Fields this module maps itself; everything else of the request is passed through unchanged. */
const MAPPED_FIELDS = new Set<string>([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'seed',
  'reasoning_effort',
  'web_search',
  'web_search_options',
]);

/** Builds the upstream JSON body; throws `UnsupportedFeatureError` for what the upstream cannot serve. */
export function toChatRequestBody(
  request: ChatRequest,
  profile: OpenAICompatibleProfile,
  nativeModel: string,
  stream: boolean,
): Record<string, unknown> {
  rejectUnsupported(request, profile);
  const body: Record<string, unknown> = {
    model: nativeModel,
    messages: mapMessages(request.messages, profile),
  };
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined || MAPPED_FIELDS.has(field)) continue;
    if (isDropped(profile, field, value)) continue;
    body[field] = value;
  }
  Object.assign(body, tokenCap(request, profile));
  if (request.seed !== undefined) body[profile.seedField] = request.seed;
  if (request.reasoning_effort !== undefined) body.reasoning_effort = reasoningEffort(request, profile);
  Object.assign(body, webSearch(request, profile));
  if (stream) {
    body.stream = true;
    if (profile.streamOptions) body.stream_options = { include_usage: true };
  }
  return body;
}

/** A field counts as used unless absent or at the value that means "the default" to every upstream. */
function isUsed(field: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (field === 'n') return value !== 1;
  if (field === 'logprobs') return value !== false;
  return true;
}

function isDropped(profile: OpenAICompatibleProfile, field: string, value: unknown): boolean {
  if (profile.droppedFields.some((dropped) => dropped === field)) return true;
  // An unsupported field at its default value (n: 1, logprobs: false) asks for nothing: leave it out.
  return profile.unsupportedFields.some((unsupported) => unsupported === field) && !isUsed(field, value);
}

function rejectUnsupported(request: ChatRequest, profile: OpenAICompatibleProfile): void {
  for (const field of profile.unsupportedFields) {
    if (isUsed(field, request[field])) {
      throw new UnsupportedFeatureError(field, `${profile.name} does not support the field \`${field}\`.`);
    }
  }
  const format = request.response_format?.type;
  if (format !== undefined && !profile.responseFormats.includes(format)) {
    throw new UnsupportedFeatureError(
      'response_format',
      `${profile.name} does not support response_format type \`${format}\` (supported: ${profile.responseFormats.join(', ')}).`,
    );
  }
}

function mapMessages(messages: ChatMessage[], profile: OpenAICompatibleProfile): ChatMessage[] {
  const renameDeveloper = profile.developerRole === 'system';
  // Most requests need no rewriting: keep the caller's array instead of copying every message.
  if (!renameDeveloper && profile.messageNames === 'all' && profile.contentParts === 'all') return messages;
  return messages.map((message, index) => {
    checkName(message, index, profile);
    const content = mapContent(message.content, index, profile);
    const role = renameDeveloper && message.role === 'developer' ? 'system' : message.role;
    return role === message.role && content === message.content ? message : { ...message, role, content };
  });
}

/** Text parts are joined with this when the upstream takes a string only. */
const TEXT_PART_SEPARATOR = '\n';

function mapContent(content: ChatMessage['content'], index: number, profile: OpenAICompatibleProfile) {
  if (!Array.isArray(content) || profile.contentParts === 'all') return content;
  for (const part of content) {
    if (part.type === 'text' || (part.type === 'image_url' && profile.contentParts === 'images')) continue;
    throw new UnsupportedFeatureError(
      `content.${part.type}`,
      `${profile.name} does not accept \`${part.type}\` content parts (messages[${index}]).`,
    );
  }
  if (profile.contentParts === 'images') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join(TEXT_PART_SEPARATOR);
}

function checkName(message: ChatMessage, index: number, profile: OpenAICompatibleProfile): void {
  if (message.name === undefined || profile.messageNames === 'all') return;
  if (profile.messageNames === 'tool' && message.role === 'tool') return;
  const where = profile.messageNames === 'tool' ? ' except on tool messages' : '';
  throw new UnsupportedFeatureError(
    'messages.name',
    `${profile.name} does not support \`name\` on messages${where} (messages[${index}]).`,
  );
}

/** One output-token cap under the profile's field name; two different caps are ambiguous, so rejected. */
function tokenCap(request: ChatRequest, profile: OpenAICompatibleProfile): Record<string, number> {
  const { max_tokens: legacy, max_completion_tokens: current } = request;
  if (profile.maxTokensField === 'as-given') {
    return {
      ...(legacy === undefined ? {} : { max_tokens: legacy }),
      ...(current === undefined ? {} : { max_completion_tokens: current }),
    };
  }
  if (legacy !== undefined && current !== undefined && legacy !== current) {
    throw new UnsupportedFeatureError(
      'max_tokens',
      'Send either max_tokens or max_completion_tokens, not two different limits.',
    );
  }
  const cap = current ?? legacy;
  return cap === undefined ? {} : { [profile.maxTokensField]: cap };
}

function reasoningEffort(request: ChatRequest, profile: OpenAICompatibleProfile): string {
  const effort = request.reasoning_effort ?? 'none';
  if (profile.reasoningEfforts.includes(effort)) return effort;
  const supported = profile.reasoningEfforts;
  const detail =
    supported.length === 0
      ? 'does not support reasoning_effort'
      : `supports reasoning_effort ${supported.join(', ')}`;
  throw new UnsupportedFeatureError(
    'reasoning_effort',
    `${profile.name} ${detail}; \`${effort}\` cannot be served.`,
  );
}

/** The gateway's `web_search` extension becomes the upstream's documented search switch, or a clear 400. */
function webSearch(request: ChatRequest, profile: OpenAICompatibleProfile): Record<string, unknown> {
  const options = request.web_search_options;
  const wanted = request.web_search === true || options !== undefined;
  if (!wanted) return {};
  if (profile.webSearch === 'unsupported') {
    throw new UnsupportedFeatureError(
      'web_search',
      `${profile.name} does not offer web search through this API.`,
    );
  }
  if (request.web_search === false) {
    throw new UnsupportedFeatureError('web_search', 'web_search is false but web_search_options is set.');
  }
  return { web_search_options: options ?? {} };
}
