/**
 * Model name mapping of the Gemini API, whose model is in the path:
 * `/{version}/models/{model}:{method}` (https://ai.google.dev/api/generate-content,
 * https://ai.google.dev/api/embeddings, https://ai.google.dev/api/tokens), and, where the body
 * repeats it as `models/{model}`, in the body too: each `requests[].model` of batchEmbedContents
 * (which must name the path's model), `model` of embedContent, `generateContentRequest.model` of
 * countTokens. Those must name the path's model (in any spelling the catalogue resolves) and are
 * rewritten with it; the rest of the body stays as sent.
 */
import type { Catalogue, ModelRoute } from '../../catalogue/catalogue.ts';
import type { ModelType } from '../../catalogue/catalogue-schema.ts';
import { errors } from '../../errors/app-error.ts';
import { ANY_INDEX, formatPath, type JsonPath } from '../json-fields.ts';
import { findOrRefuse, type MappedRequest, rewrite } from '../map-json-model.ts';
import { resolveNativeModel } from '../resolve-native-model.ts';

export const GEMINI_METHODS = [
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
] as const;
export type GeminiMethod = (typeof GEMINI_METHODS)[number];

/** What each method serves, and where its body repeats the model. */
const METHOD_FACTS: Readonly<Record<GeminiMethod, { types: readonly ModelType[]; bodyModels: JsonPath[] }>> =
  {
    generateContent: { types: ['chat'], bodyModels: [] },
    streamGenerateContent: { types: ['chat'], bodyModels: [] },
    countTokens: { types: ['chat'], bodyModels: [['generateContentRequest', 'model']] },
    embedContent: { types: ['embedding'], bodyModels: [['model']] },
    batchEmbedContents: { types: ['embedding'], bodyModels: [['requests', ANY_INDEX, 'model']] },
  };

const PATH = /^\/(v1|v1beta)\/models\/([^/:]+):([A-Za-z]+)$/;
const MODEL_NAME = /^[A-Za-z0-9._-]+$/;

/** A Gemini API path, split. */
export interface GeminiPath {
  readonly version: 'v1' | 'v1beta';
  readonly model: string;
  readonly method: GeminiMethod;
}

/** Splits `/v1beta/models/{model}:{method}` (no query); anything else is a 404 of the route. */
export function parseGeminiPath(path: string): GeminiPath {
  const match = PATH.exec(path);
  const method = match?.[3];
  const model = match?.[2] === undefined ? undefined : safeDecode(match[2]);
  if (!match || model === undefined || !MODEL_NAME.test(model) || !isMethod(method)) {
    throw errors.routeNotFound('POST', path);
  }
  return { version: match[1] as GeminiPath['version'], model, method };
}

/** A mapped Gemini request: the body per route, and the path per route. */
export interface MappedGeminiRequest extends MappedRequest {
  readonly method: GeminiMethod;
  /** The upstream path for `route` (no query): `/{version}/models/{native id}:{method}`. */
  path(route: ModelRoute): string;
}

/** Resolves the path's model and maps path and body for each Google route. */
export function mapGeminiRequest(
  path: string,
  body: Uint8Array,
  catalogue: Pick<Catalogue, 'list'>,
): MappedGeminiRequest {
  const parsed = parseGeminiPath(path);
  const facts = METHOD_FACTS[parsed.method];
  const found = findOrRefuse(body, facts.bodyModels);
  const match = resolveNativeModel(catalogue, 'google', parsed.model, facts.types);
  for (const value of found) {
    const named = value.value.startsWith('models/') ? value.value.slice('models/'.length) : undefined;
    if (named !== parsed.model && !namesModel(catalogue, named, facts.types, match.model.id)) {
      throw errors.invalidRequest(
        `The field \`${formatPath(value.path)}\` must name the model of the path, models/${parsed.model}.`,
      );
    }
  }
  return {
    ...match,
    requested: parsed.model,
    method: parsed.method,
    body: (route) =>
      found.length === 0 ? body : rewrite(body, found, JSON.stringify(`models/${route.native_id}`)),
    path: (route) => `/${parsed.version}/models/${route.native_id}:${parsed.method}`,
  };
}

/**
 * The query to send upstream: the client's, minus `key` (the gateway's key travels there in
 * Gemini's convention; the upstream gets the provider key in a header). Kept as sent otherwise:
 * `alt=sse` decides the stream's framing, which the usage accumulator must know too.
 */
export function geminiUpstreamQuery(search: string): string {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  const kept = raw.split('&').filter((pair) => pair !== '' && safeDecode(pair.split('=')[0] ?? '') !== 'key');
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** Whether a query asks for server-sent events (`alt=sse`); otherwise a stream is one JSON array. */
export function isSseQuery(search: string): boolean {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  return raw.split('&').some((pair) => {
    const [name = '', value = ''] = pair.split('=');
    return safeDecode(name) === 'alt' && safeDecode(value) === 'sse';
  });
}

/** Whether `name` resolves to the model `id` (another spelling of the path's model). */
function namesModel(
  catalogue: Pick<Catalogue, 'list'>,
  name: string | undefined,
  types: readonly ModelType[],
  id: string,
): boolean {
  try {
    return resolveNativeModel(catalogue, 'google', name, types).model.id === id;
  } catch {
    return false;
  }
}

function isMethod(method: string | undefined): method is GeminiMethod {
  return (GEMINI_METHODS as readonly (string | undefined)[]).includes(method);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}
