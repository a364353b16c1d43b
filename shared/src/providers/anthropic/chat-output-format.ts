/**
 * `response_format` → Anthropic structured outputs. Anthropic documents JSON outputs as
 * `output_config.format = {type: 'json_schema', schema}` (generally available, no beta header;
 * https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs) for Claude Sonnet 4.5,
 * Opus 4.5, Haiku 4.5 and later models only. For older models (Claude 3.x, Opus 4 and 4.1,
 * Sonnet 4), and for `json_object`, which has no native counterpart, the documented fallback is a
 * forced tool (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use,
 * "JSON mode"): one tool whose `input_schema` is the wanted schema and `tool_choice` naming it; its
 * input is returned to the client as the message content.
 */
import type { ResponseFormat } from '../chat-types.ts';
import { JSON_OUTPUT_TOOL } from './chat-tools.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type { CustomTool, MessagesRequestBody } from './wire-types.ts';

export type OutputFormatPlan =
  | { kind: 'none' }
  | { kind: 'native'; outputConfig: NonNullable<MessagesRequestBody['output_config']> }
  | { kind: 'forced-tool'; tool: CustomTool };

/**
 * Whether a model takes `output_config.format` and `strict` tools: true for the Claude 4.5
 * generation and later; false for Claude 3.x ids (`claude-3-…`) and Claude 4.0/4.1. An id of
 * another form (an alias or a future naming) is assumed current.
 */
export function supportsNativeStructuredOutputs(model: string): boolean {
  if (/^claude-\d/.test(model)) return false;
  const match = /^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(model);
  if (match === null) return true;
  const major = Number(match[1]);
  const minor = Number(match[2] ?? '0');
  return major > 4 || (major === 4 && minor >= 5);
}

/** How this request obtains JSON output, if it asks for it. */
export function outputFormatPlan(
  format: ResponseFormat | undefined,
  nativeSupported: boolean,
): OutputFormatPlan {
  if (format === undefined || format.type === 'text') return { kind: 'none' };
  if (format.type === 'json_object' || format.json_schema.schema === undefined) {
    return forcedTool({ type: 'object' }, 'a JSON object');
  }
  const { name, schema } = format.json_schema;
  if (nativeSupported) return { kind: 'native', outputConfig: { format: { type: 'json_schema', schema } } };
  if (schema.type !== 'object') {
    throw new UnsupportedFeatureError(
      'response_format.json_schema.schema',
      'On this model a json_schema response format needs a schema of type `object`.',
    );
  }
  return forcedTool(schema, `JSON matching the schema \`${name}\``);
}

function forcedTool(schema: Record<string, unknown>, what: string): OutputFormatPlan {
  return {
    kind: 'forced-tool',
    tool: {
      name: JSON_OUTPUT_TOOL,
      description: `Give your complete answer as ${what} by calling this tool; its input is the answer.`,
      input_schema: schema,
    },
  };
}
