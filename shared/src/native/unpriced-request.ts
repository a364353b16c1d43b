/**
 * The check before a native call: which billable features a request asks for that the model has
 * no catalogue price for. `nativeCost` refuses such usage after the fact; refusing the request
 * first (400 naming the parts) means the provider is never asked for work the gateway cannot bill.
 * Feature names match the part names `nativeCost` refuses (`web_search`, `cache_write_1h`, …).
 */
import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { nativeFactsOf } from './native-model.ts';
import { isObject } from './native-usage.ts';

export type NativeProtocol = 'anthropic' | 'gemini' | 'openai-responses';

/** The parts `body` may incur that `model` has no price for, each named once. */
export function unpricedRequestParts(
  protocol: NativeProtocol,
  model: CatalogueModel,
  body: Readonly<Record<string, unknown>>,
): string[] {
  const requested = REQUESTED[protocol](body);
  const prices = nativeFactsOf(model).prices;
  const priced: Readonly<Record<string, boolean>> = {
    web_search: prices.web_search_per_1k !== undefined,
    cache_write_5m: prices.cache_write_5m !== undefined,
    cache_write_1h: prices.cache_write_1h !== undefined,
  };
  return [...new Set(requested)].filter((part) => priced[part] !== true);
}

const REQUESTED: Readonly<Record<NativeProtocol, (body: Readonly<Record<string, unknown>>) => string[]>> = {
  anthropic: anthropicParts,
  gemini: geminiParts,
  'openai-responses': responsesParts,
};

function toolsOf(body: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  return Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
}

/** Every object nested in `value` (itself included). */
function* objectsIn(value: unknown): Generator<Record<string, unknown>> {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next)) stack.push(...next);
    else if (isObject(next)) {
      yield next;
      stack.push(...Object.values(next));
    }
  }
}

/** Server tools billed per use, prompt-cache writes by lifetime (`cache_control.ttl`, default 5m). */
function anthropicParts(body: Readonly<Record<string, unknown>>): string[] {
  const parts: string[] = [];
  for (const tool of toolsOf(body)) {
    const type = String(tool.type ?? '');
    if (type.startsWith('web_search_')) parts.push('web_search');
    // Code execution is billed per container hour beyond a free allowance.
    if (type.startsWith('code_execution_')) parts.push('code_execution');
  }
  for (const object of objectsIn(body)) {
    const control = object.cache_control;
    if (!isObject(control)) continue;
    parts.push(control.ttl === '1h' ? 'cache_write_1h' : 'cache_write_5m');
  }
  return parts;
}

/**
 * Grounding tools, and audio sent inline or by file (priced apart from text by Google). The API
 * reads each field by its JSON name or its proto name (`googleSearch` or `google_search`).
 */
function geminiParts(body: Readonly<Record<string, unknown>>): string[] {
  const field = (object: Readonly<Record<string, unknown>>, camel: string, snake: string) =>
    object[camel] ?? object[snake];
  const parts: string[] = [];
  for (const tool of toolsOf(body)) {
    const search =
      field(tool, 'googleSearch', 'google_search') ??
      field(tool, 'googleSearchRetrieval', 'google_search_retrieval');
    if (search !== undefined) parts.push('google_search_grounding');
    if (field(tool, 'googleMaps', 'google_maps') !== undefined) parts.push('google_maps_grounding');
  }
  for (const object of objectsIn(body.contents)) {
    const media = field(object, 'inlineData', 'inline_data') ?? field(object, 'fileData', 'file_data');
    const mimeType = isObject(media) ? field(media, 'mimeType', 'mime_type') : undefined;
    if (typeof mimeType === 'string' && mimeType.startsWith('audio/')) parts.push('audio_input_tokens');
  }
  return parts;
}

/** Built-in tools billed per call, background responses (billed on a later poll), other tiers. */
function responsesParts(body: Readonly<Record<string, unknown>>): string[] {
  const parts: string[] = [];
  for (const tool of toolsOf(body)) {
    const type = String(tool.type ?? '');
    if (type.startsWith('web_search')) parts.push('web_search');
    else if (type === 'file_search') parts.push('file_search_calls');
    else if (type === 'code_interpreter') parts.push('code_interpreter_calls');
    else if (type === 'image_generation') parts.push('image_generation_calls');
  }
  if (body.background === true) parts.push('background_responses');
  if (body.service_tier === 'flex' || body.service_tier === 'priority')
    parts.push(`${body.service_tier}_tier_requests`);
  return parts;
}
