/**
 * Sampling, output and tool options of a chat request to Gemini's `generationConfig`, `tools` and
 * `toolConfig`, per https://ai.google.dev/api/generate-content#generationconfig,
 * https://ai.google.dev/gemini-api/docs/function-calling (functionDeclarations with
 * `parametersJsonSchema`, functionCallingConfig modes AUTO/ANY/NONE),
 * https://ai.google.dev/gemini-api/docs/structured-output (`responseJsonSchema`) and
 * https://ai.google.dev/gemini-api/docs/google-search (`google_search` tool).
 *
 * Tool parameters and response schemas go through as JSON Schema (`parametersJsonSchema`,
 * `responseJsonSchema`), so nothing is translated to Gemini's OpenAPI subset; only a top-level
 * `$schema` (a dialect marker with no meaning for the output) is removed, since Gemini documents a
 * fixed list of supported keywords without it. What Gemini cannot do and would change the answer is rejected with
 * UnsupportedFeatureError: logprobs, logit_bias, more than 5 stop sequences.
 */
import type { ChatRequest, ToolChoice } from '../chat-types.ts';
import { UnsupportedFeatureError } from './errors.ts';
import { thinkingConfigOf } from './thinking.ts';
import type { GeminiGenerationConfig, GeminiTool, GeminiToolConfig } from './wire-request.ts';

/** Gemini's documented limit on `stopSequences`. */
export const MAX_STOP_SEQUENCES = 5;

/** Throws for request fields Gemini has no equivalent for and that would change the answer. */
export function rejectUnsupported(request: ChatRequest): void {
  if (request.logprobs === true || request.top_logprobs !== undefined) {
    throw new UnsupportedFeatureError(null, 'logprobs and top_logprobs are not supported for Gemini models.');
  }
  if (request.logit_bias && Object.keys(request.logit_bias).length > 0) {
    throw new UnsupportedFeatureError(null, 'logit_bias is not supported for Gemini models.');
  }
}

/** The schema without its top-level `$schema` dialect marker. */
export function jsonSchemaOf(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function stopSequencesOf(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (list.length > MAX_STOP_SEQUENCES) {
    throw new UnsupportedFeatureError(null, `Gemini accepts at most ${MAX_STOP_SEQUENCES} stop sequences.`);
  }
  return list.length > 0 ? list : undefined;
}

function responseFormatOf(format: ChatRequest['response_format']): GeminiGenerationConfig {
  if (format?.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format?.type === 'json_schema') {
    const schema = format.json_schema.schema;
    return schema
      ? { responseMimeType: 'application/json', responseJsonSchema: jsonSchemaOf(schema) }
      : { responseMimeType: 'application/json' };
  }
  return {};
}

/** `generationConfig` (unset fields undefined), or undefined when the request sets none of them. */
export function generationConfigOf(
  request: ChatRequest,
  nativeModel: string,
): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {
    temperature: request.temperature,
    topP: request.top_p,
    maxOutputTokens: request.max_completion_tokens ?? request.max_tokens,
    stopSequences: stopSequencesOf(request.stop),
    seed: request.seed,
    presencePenalty: request.presence_penalty,
    frequencyPenalty: request.frequency_penalty,
    candidateCount: request.n,
    ...responseFormatOf(request.response_format),
    thinkingConfig: thinkingConfigOf(request.reasoning_effort, nativeModel),
  };
  // Unset fields stay undefined and vanish in JSON.stringify.
  return Object.values(config).some((value) => value !== undefined) ? config : undefined;
}

/** Function declarations plus Google Search grounding when `web_search` is on. */
export function toolsOf(request: ChatRequest): GeminiTool[] | undefined {
  const tools: GeminiTool[] = [];
  const functions = request.tools ?? [];
  if (functions.length > 0) {
    tools.push({
      functionDeclarations: functions.map(({ function: fn }) => ({
        name: fn.name,
        ...(fn.description === undefined ? {} : { description: fn.description }),
        ...(fn.parameters === undefined ? {} : { parametersJsonSchema: jsonSchemaOf(fn.parameters) }),
      })),
    });
  }
  if (request.web_search === true) tools.push({ google_search: {} });
  return tools.length > 0 ? tools : undefined;
}

/** `toolConfig` from `tool_choice`; undefined leaves Gemini's default (AUTO). */
export function toolConfigOf(
  choice: ToolChoice | undefined,
  hasFunctions: boolean,
): GeminiToolConfig | undefined {
  if (choice === undefined) return undefined;
  if (!hasFunctions) {
    if (choice === 'auto' || choice === 'none') return undefined;
    throw new UnsupportedFeatureError(null, 'tool_choice requires tools.');
  }
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}
