/**
 * The attribute names and values of the OpenTelemetry semantic conventions that are still
 * incubating (GenAI, messaging, AWS S3), copied from `@opentelemetry/semantic-conventions/incubating`
 * 1.45.0 as that package asks: its incubating entry point may change in a minor release, so
 * instrumentation keeps its own copy. Stable names are imported from the package itself.
 */

/** `gen_ai.operation.name`: chat, embeddings, generate_content, … */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** `gen_ai.provider.name`: the provider as the conventions name it (`openai`, `gcp.gemini`, …). */
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** `gen_ai.request.model`: the model asked for. */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
/** `gen_ai.response.model`: the model that answered. */
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
/** `gen_ai.usage.input_tokens`. */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
/** `gen_ai.usage.output_tokens`. */
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';

/** `messaging.system`: here `bullmq` (the conventions list no value for it; custom values are allowed). */
export const ATTR_MESSAGING_SYSTEM = 'messaging.system';
/** `messaging.operation.type`: `send` when a job is enqueued, `process` when a worker runs it. */
export const ATTR_MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
/** `messaging.destination.name`: the queue. */
export const ATTR_MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
/** `messaging.message.id`: the job id (the media job document's id). */
export const ATTR_MESSAGING_MESSAGE_ID = 'messaging.message.id';

/** `aws.s3.bucket` and `aws.s3.key` of a stored object. */
export const ATTR_AWS_S3_BUCKET = 'aws.s3.bucket';
export const ATTR_AWS_S3_KEY = 'aws.s3.key';

/**
 * The GenAI operations the gateway performs: the conventions' well-known names, and
 * `count_tokens` (a provider's token count of a request, which the conventions do not name).
 */
export type GenAiOperation = 'chat' | 'embeddings' | 'generate_content' | 'count_tokens';

/**
 * `gen_ai.provider.name` of a route's provider: the conventions' well-known value where there is
 * one, else the gateway's own provider id (ElevenLabs, Runway, the demo simulator, declared
 * OpenAI-compatible upstreams).
 */
export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  google: 'gcp.gemini',
  xai: 'x_ai',
  mistral: 'mistral_ai',
};
