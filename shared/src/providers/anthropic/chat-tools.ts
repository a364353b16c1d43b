/**
 * Tools of the chat convention → Anthropic `tools` and `tool_choice`. Documented shapes followed
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use): a client tool
 * is `{name, description, input_schema}`; `tool_choice` is `{type: 'auto'|'any'|'tool'|'none'}`
 * with `disable_parallel_tool_use`; web search is the server tool
 * `{type: 'web_search_20250305', name: 'web_search', max_uses, user_location}`
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool).
 */
import type { ChatRequest, Tool, ToolChoice } from '../chat-types.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type { CustomTool, ToolChoiceParam, WebSearchTool } from './wire-types.ts';

/**
 * The tool this adapter adds to obtain JSON output on models without native structured outputs
 * (see chat-output-format.ts). A `tool_use` of this name is the answer's content, not a tool call;
 * clients may not declare a tool of this name, so the mapping back is unambiguous.
 */
export const JSON_OUTPUT_TOOL = 'respond_with_json';

/** Searches per request: bounds what one answer can spend on Anthropic's per-search fee. */
export const WEB_SEARCH_MAX_USES = 5;

/** Client tools; `strict` is passed on only where the model supports strict tool use. */
export function customTools(tools: readonly Tool[] | undefined, strictSupported: boolean): CustomTool[] {
  return (tools ?? []).map((tool, i) => {
    const { name, description, parameters, strict } = tool.function;
    if (name === JSON_OUTPUT_TOOL) {
      throw new UnsupportedFeatureError(
        `tools[${i}].function.name`,
        `The tool name \`${name}\` is reserved.`,
      );
    }
    // Anthropic requires an object schema; a tool without parameters takes an empty object.
    const mapped: CustomTool = { name, input_schema: parameters ?? { type: 'object', properties: {} } };
    if (description !== undefined) mapped.description = description;
    if (strict === true && strictSupported) mapped.strict = true;
    return mapped;
  });
}

/** The web search server tool when `web_search` is true; `web_search_options` only refines it. */
export function webSearchTool(request: ChatRequest): WebSearchTool | undefined {
  if (request.web_search !== true) return undefined;
  const tool: WebSearchTool = {
    type: 'web_search_20250305',
    name: 'web_search',
    max_uses: WEB_SEARCH_MAX_USES,
  };
  const location = userLocation(request.web_search_options);
  if (location !== undefined) tool.user_location = location;
  return tool;
}

/**
 * `web_search_options.user_location.approximate` ({city, region, country, timezone}) has the same
 * meaning as Anthropic's `user_location`; `search_context_size` has no counterpart and is ignored.
 */
function userLocation(options: Record<string, unknown> | undefined): WebSearchTool['user_location'] {
  const location = options?.user_location;
  if (!isRecord(location) || !isRecord(location.approximate)) return undefined;
  const approximate = location.approximate;
  const result: NonNullable<WebSearchTool['user_location']> = { type: 'approximate' };
  for (const key of ['city', 'region', 'country', 'timezone'] as const) {
    const value = approximate[key];
    if (typeof value === 'string' && value !== '') result[key] = value;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `tool_choice` and `parallel_tool_calls: false` → Anthropic's `tool_choice`. */
export function toolChoice(
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
): ToolChoiceParam | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...single } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...single };
  if (choice === 'required') return { type: 'any', ...single };
  return { type: 'tool', name: choice.function.name, ...single };
}
