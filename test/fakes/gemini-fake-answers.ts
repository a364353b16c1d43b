/**
 * What the fake Gemini upstream answers, derived only from the request so tests can predict it.
 * Bodies follow Gemini's documented shapes (https://ai.google.dev/api/generate-content,
 * https://ai.google.dev/api/embeddings, https://ai.google.dev/gemini-api/docs/troubleshooting).
 *
 * Triggers, all read from the request:
 * - text: `Echo: <text of the last user turn>`; JSON (`{"echo": …}`) when responseMimeType is JSON;
 * - a function call when functionDeclarations are given and the last user text names one of them,
 *   or when functionCallingConfig.mode is ANY (first allowed name); args `{"query": <text>}`;
 *   Gemini 3 models (`gemini-3…`) put `thoughtSignature: "c2lnLTA="` on the first call;
 * - after functionResponse parts: `Tool <name> returned <response JSON>`;
 * - a thought part `Thinking about: <text>` when thinkingConfig.includeThoughts is true;
 * - Google Search grounding (three chunks, two with the same uri) when a google_search (or
 *   googleSearch) tool is given;
 * - a prompt blocked for SAFETY (no candidates) when the last user text contains `[blocked]`;
 * - MAX_TOKENS with text cut to maxOutputTokens * 4 characters when the answer is longer;
 * - candidateCount n: candidate i > 0 answers `Echo #i: <text>`.
 * Usage: prompt = ceil(characters of every text part, system instruction included / 4);
 * cachedContentTokenCount = ceil(system instruction characters / 4) (an implicit cache hit on the
 * fixed prefix); candidates = ceil(answer characters / 4), a function call counting its name plus
 * its JSON args; thoughts = ceil(thought characters / 4).
 */

export type Json = Record<string, unknown>;

export function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

const tokens = (chars: number): number => Math.ceil(chars / 4);

export const FAKE_SIGNATURE = 'c2lnLTA=';

/** Gemini's documented error body. */
import { errorBody } from './google-errors.ts';

export { errorBody };

function textsOf(content: unknown): string[] {
  return asArray(asRecord(content)?.parts)
    .map((part) => asRecord(part)?.text)
    .filter((text): text is string => typeof text === 'string');
}

/** GenerateContentRequest's fields, by JSON name and proto name (the API reads both). */
const GENERATE_FIELDS = new Set([
  'model',
  'contents',
  'tools',
  'toolConfig',
  'tool_config',
  'safetySettings',
  'safety_settings',
  'systemInstruction',
  'system_instruction',
  'generationConfig',
  'generation_config',
  'cachedContent',
  'cached_content',
]);

/**
 * A 400 body when the request lacks what Gemini requires, else undefined. An unknown top-level
 * field is refused as Google does, its name echoed in the message and a BadRequest detail.
 */
export function checkGenerateRequest(body: Json, model: string): Json | undefined {
  const unknown = Object.keys(body).find((name) => !GENERATE_FIELDS.has(name));
  if (unknown !== undefined) {
    const message = `Invalid JSON payload received. Unknown name ${JSON.stringify(unknown)}: Cannot find field.`;
    return errorBody(400, 'INVALID_ARGUMENT', message, [
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description: message }] },
    ]);
  }
  const contents = asArray(body.contents);
  const invalid = (message: string) => errorBody(400, 'INVALID_ARGUMENT', message);
  if (contents.length === 0) return invalid('* GenerateContentRequest.contents: contents is not specified\n');
  for (const [i, content] of contents.entries()) {
    const record = asRecord(content);
    const role = record?.role;
    if (role !== undefined && role !== 'user' && role !== 'model') {
      return invalid('Please use a valid role: user, model.');
    }
    const parts = asArray(record?.parts);
    if (parts.length === 0)
      return invalid(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    const firstCall = parts.map(asRecord).find((part) => part?.functionCall !== undefined);
    if (model.startsWith('gemini-3') && firstCall && typeof firstCall.thoughtSignature !== 'string') {
      return invalid(
        `Function call is missing a thought_signature in functionCall parts. Content block ${i}.`,
      );
    }
  }
  const stops = asArray(asRecord(body.generationConfig)?.stopSequences);
  if (stops.length > 5)
    return invalid('* GenerateContentRequest.generation_config.stop_sequences: at most 5 allowed\n');
  return undefined;
}

interface Scenario {
  model: string;
  text: string;
  toolResult: { name: string; response: unknown } | undefined;
  functions: string[];
  forcedFunction: string | undefined;
  search: boolean;
  json: boolean;
  thoughts: boolean;
  maxOutputTokens: number | undefined;
  candidateCount: number;
  promptTokens: number;
  cachedTokens: number;
}

function functionNamesOf(body: Json): string[] {
  return asArray(body.tools).flatMap((tool) =>
    asArray(asRecord(tool)?.functionDeclarations).map((fn) => String(asRecord(fn)?.name ?? '')),
  );
}

function forcedFunctionOf(body: Json, functions: string[]): string | undefined {
  const config = asRecord(asRecord(body.toolConfig)?.functionCallingConfig);
  if (config?.mode !== 'ANY') return undefined;
  const allowed = asArray(config.allowedFunctionNames).filter(
    (name): name is string => typeof name === 'string',
  );
  return allowed[0] ?? functions[0];
}

function scenarioOf(body: Json, model: string): Scenario {
  const contents = asArray(body.contents);
  const last = asRecord(contents.at(-1));
  const response = asArray(last?.parts)
    .map((part) => asRecord(asRecord(part)?.functionResponse))
    .find((fr) => fr !== undefined);
  const config = asRecord(body.generationConfig) ?? {};
  const systemChars = textsOf(body.systemInstruction).join('').length;
  const allChars = contents.flatMap(textsOf).join('').length + systemChars;
  const functions = functionNamesOf(body);
  return {
    model,
    text: textsOf(last).join(' '),
    toolResult: response ? { name: String(response.name), response: response.response } : undefined,
    functions,
    forcedFunction: forcedFunctionOf(body, functions),
    search: asArray(body.tools).some((tool) => {
      const record = asRecord(tool);
      return record?.google_search !== undefined || record?.googleSearch !== undefined;
    }),
    json: config.responseMimeType === 'application/json',
    thoughts: asRecord(config.thinkingConfig)?.includeThoughts === true,
    maxOutputTokens: typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined,
    candidateCount: typeof config.candidateCount === 'number' ? config.candidateCount : 1,
    promptTokens: tokens(allChars),
    cachedTokens: tokens(systemChars),
  };
}

interface CandidatePlan {
  thought: string | undefined;
  text: string | undefined;
  call: { name: string; args: Json } | undefined;
  finishReason: string;
}

function planCandidate(s: Scenario, index: number): CandidatePlan {
  const thought = s.thoughts ? `Thinking about: ${s.text}` : undefined;
  const called = s.forcedFunction ?? s.functions.find((name) => name.length > 0 && s.text.includes(name));
  if (!s.toolResult && called)
    return {
      thought,
      text: undefined,
      call: { name: called, args: { query: s.text } },
      finishReason: 'STOP',
    };
  let text = s.toolResult
    ? `Tool ${s.toolResult.name} returned ${JSON.stringify(s.toolResult.response)}`
    : `${index === 0 ? 'Echo' : `Echo #${index}`}: ${s.text}`;
  if (s.json) text = JSON.stringify({ echo: text });
  if (s.maxOutputTokens !== undefined && tokens(text.length) > s.maxOutputTokens) {
    return {
      thought,
      text: text.slice(0, s.maxOutputTokens * 4),
      call: undefined,
      finishReason: 'MAX_TOKENS',
    };
  }
  return { thought, text, call: undefined, finishReason: 'STOP' };
}

function usageOf(s: Scenario, plans: CandidatePlan[], final: boolean): Json {
  const out = plans.reduce(
    (sum, p) =>
      sum + (p.text?.length ?? 0) + (p.call ? p.call.name.length + JSON.stringify(p.call.args).length : 0),
    0,
  );
  const thoughts = tokens(plans.reduce((sum, p) => sum + (p.thought?.length ?? 0), 0));
  const candidates = final ? tokens(out) : 0;
  return {
    promptTokenCount: s.promptTokens,
    ...(s.cachedTokens > 0 ? { cachedContentTokenCount: s.cachedTokens } : {}),
    ...(candidates > 0 ? { candidatesTokenCount: candidates } : {}),
    ...(final && thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: s.promptTokens + candidates + (final ? thoughts : 0),
  };
}

const GROUNDING = {
  webSearchQueries: ['fake query'],
  groundingChunks: [
    {
      web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/a', title: 'example.com' },
    },
    {
      web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/a', title: 'example.com' },
    },
    {
      web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/b', title: 'example.org' },
    },
  ],
};

function partsOf(plan: CandidatePlan, s: Scenario): Json[] {
  const parts: Json[] = [];
  if (plan.thought) parts.push({ text: plan.thought, thought: true });
  if (plan.text !== undefined) parts.push({ text: plan.text });
  if (plan.call) {
    const signature = s.model.startsWith('gemini-3') ? { thoughtSignature: FAKE_SIGNATURE } : {};
    parts.push({ functionCall: plan.call, ...signature });
  }
  return parts;
}

function blocked(s: Scenario): boolean {
  return s.text.includes('[blocked]');
}

const envelope = (s: Scenario): Json => ({ modelVersion: s.model, responseId: 'fake-response-id' });

/** The whole GenerateContentResponse for a (valid) request. */
export function generateResponse(body: Json, model: string): Json {
  const s = scenarioOf(body, model);
  if (blocked(s))
    return { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: usageOf(s, [], true), ...envelope(s) };
  const plans = Array.from({ length: s.candidateCount }, (_, i) => planCandidate(s, i));
  const candidates = plans.map((plan, index) => ({
    content: { parts: partsOf(plan, s), role: 'model' },
    finishReason: plan.finishReason,
    index,
    ...(s.search ? { groundingMetadata: GROUNDING } : {}),
  }));
  return { candidates, usageMetadata: usageOf(s, plans, true), ...envelope(s) };
}

/** The same answer as the sequence of stream chunks Gemini sends: one part per event, then the finish. */
export function streamResponses(body: Json, model: string): Json[] {
  const s = scenarioOf(body, model);
  if (blocked(s)) return [generateResponse(body, model)];
  const plans = Array.from({ length: s.candidateCount }, (_, i) => planCandidate(s, i));
  const pieces = plans.map((plan) => {
    const parts = partsOf(plan, s);
    // Text arrives in two halves, as Gemini streams a long part over several events.
    return parts.flatMap((part) => {
      if (typeof part.text !== 'string' || part.text.length < 2) return [part];
      const half = Math.ceil(part.text.length / 2);
      return [
        { ...part, text: part.text.slice(0, half) },
        { ...part, text: part.text.slice(half) },
      ];
    });
  });
  const steps = Math.max(...pieces.map((list) => list.length));
  const events: Json[] = [];
  for (let step = 0; step < steps; step += 1) {
    const candidates = pieces.flatMap((list, index) =>
      list[step] ? [{ content: { parts: [list[step]], role: 'model' }, index }] : [],
    );
    events.push({ candidates, usageMetadata: usageOf(s, plans, false), ...envelope(s) });
  }
  const finals = plans.map((plan, index) => ({
    content: { parts: [{ text: '' }], role: 'model' },
    finishReason: plan.finishReason,
    index,
    ...(s.search ? { groundingMetadata: GROUNDING } : {}),
  }));
  events.push({ candidates: finals, usageMetadata: usageOf(s, plans, true), ...envelope(s) });
  return events;
}

/** A 400 body for a malformed batchEmbedContents request, else undefined. */
export function checkEmbedRequest(body: Json, model: string): Json | undefined {
  const requests = asArray(body.requests);
  if (requests.length === 0)
    return errorBody(
      400,
      'INVALID_ARGUMENT',
      '* BatchEmbedContentsRequest.requests: requests is not specified\n',
    );
  for (const [i, request] of requests.entries()) {
    const record = asRecord(request);
    if (record?.model !== `models/${model}`) {
      return errorBody(
        400,
        'INVALID_ARGUMENT',
        `* BatchEmbedContentsRequest.requests[${i}].model: must match the model in the URL\n`,
      );
    }
    if (textsOf(record.content).length === 0) {
      return errorBody(
        400,
        'INVALID_ARGUMENT',
        `* BatchEmbedContentsRequest.requests[${i}].content: content is not specified\n`,
      );
    }
  }
  return undefined;
}

/** Deterministic vectors: outputDimensionality (default 8) values derived from the text. */
export function embedResponse(body: Json): Json {
  return { embeddings: asArray(body.requests).map((request) => embeddingOf(asRecord(request))) };
}

function embeddingOf(request: Json | undefined): Json {
  const text = textsOf(request?.content).join('');
  const seed = [...text].reduce((sum, ch) => sum + (ch.codePointAt(0) ?? 0), text.length);
  const size = typeof request?.outputDimensionality === 'number' ? request.outputDimensionality : 8;
  return { values: Array.from({ length: size }, (_, i) => (((seed * (i + 1)) % 1000) - 500) / 1000) };
}

/** A 400 body for a malformed embedContent request (the model field is optional), else undefined. */
export function checkSingleEmbedRequest(body: Json, model: string): Json | undefined {
  if (body.model !== undefined && body.model !== `models/${model}`) {
    return errorBody(
      400,
      'INVALID_ARGUMENT',
      '* EmbedContentRequest.model: must match the model in the URL\n',
    );
  }
  if (textsOf(body.content).length === 0) {
    return errorBody(400, 'INVALID_ARGUMENT', '* EmbedContentRequest.content: content is not specified\n');
  }
  return undefined;
}

/** embedContent's answer: one `embedding` (https://ai.google.dev/api/embeddings#EmbedContentResponse). */
export function singleEmbedResponse(body: Json): Json {
  return { embedding: embeddingOf(body) };
}

/**
 * countTokens (https://ai.google.dev/api/tokens): `contents`, or a whole `generateContentRequest`
 * (its `model` naming the path's model; its system instruction counted too), never both. Answers
 * the tokens as the generation usage counts its prompt, or a 400 body.
 */
export function countTokensResponse(body: Json, model: string): { status: number; body: Json } {
  const invalid = (message: string) => ({ status: 400, body: errorBody(400, 'INVALID_ARGUMENT', message) });
  const wrapped = asRecord(body.generateContentRequest);
  if (wrapped && body.contents !== undefined) {
    return invalid('contents and generate_content_request cannot both be set.');
  }
  if (wrapped && wrapped.model !== `models/${model}`) {
    return invalid('* CountTokensRequest.generate_content_request.model: must match the model in the URL\n');
  }
  const request = wrapped ?? body;
  const contents = asArray(request.contents);
  if (contents.length === 0) return invalid('* CountTokensRequest.contents: contents is not specified\n');
  const chars =
    contents.flatMap(textsOf).join('').length + textsOf(request.systemInstruction).join('').length;
  const totalTokens = tokens(chars);
  return {
    status: 200,
    body: { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] },
  };
}
