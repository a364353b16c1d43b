/**
 * The Gemini API as the native simulator answers it: generateContent, streamGenerateContent
 * (server-sent events with `alt=sse`, else one JSON array), countTokens, embedContent and
 * batchEmbedContents, by the demo rules (vectors of `demoVector`, 256 dimensions by default).
 */
import {
  DEMO_DEFAULT_DIMENSIONS,
  DEMO_MAX_DIMENSIONS,
  demoVector,
} from '../../providers/demo/demo-embeddings.ts';
import { demoTokens } from '../../providers/demo/demo-tokens.ts';
import type { UpstreamResponse } from '../../upstream/upstream-client.ts';
import { parseGeminiPath } from '../google/model-path.ts';
import { isObject } from '../native-usage.ts';
import { demoReply, textsOf } from './demo-reply.ts';
import { simulatedJson, simulatedResponse } from './simulated-response.ts';

/** The simulator's answer to a Gemini request on `path` (with its `query`) and parsed `body`. */
export function simulateGemini(path: string, query: string, body: Record<string, unknown>): UpstreamResponse {
  const { model, method } = parseGeminiPath(path);
  switch (method) {
    case 'embedContent':
      return embedAnswer([body], (values) => ({ embedding: values[0] }));
    case 'batchEmbedContents':
      return Array.isArray(body.requests) && body.requests.length > 0
        ? embedAnswer(body.requests, (values) => ({ embeddings: values }))
        : googleError('requests: at least one request is required.');
    case 'countTokens': {
      const request = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
      return simulatedJson({ totalTokens: demoTokens(inputTextOf(request)) });
    }
    default:
      return generateAnswer(model, method === 'streamGenerateContent', query, body);
  }
}

function inputTextOf(request: Record<string, unknown>): string {
  return [...textsOf(request.systemInstruction), ...textsOf(request.contents)].join('');
}

function generateAnswer(
  model: string,
  streamed: boolean,
  query: string,
  body: Record<string, unknown>,
): UpstreamResponse {
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return googleError('contents is not specified');
  const lastUser = [...contents].reverse().find((c) => isObject(c) && c.role !== 'model');
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const reply = demoReply(textsOf(lastUser).join(' '), inputTextOf(body), config.maxOutputTokens);
  const responseId = `demo${Date.now().toString(36)}`;
  const chunk = (text: string, outputTokens: number, last: boolean) => ({
    candidates: [
      {
        content: { parts: [{ text }], role: 'model' },
        ...(last ? { finishReason: reply.truncated ? 'MAX_TOKENS' : 'STOP' } : {}),
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: reply.inputTokens,
      candidatesTokenCount: outputTokens,
      totalTokenCount: reply.inputTokens + outputTokens,
    },
    modelVersion: model,
    responseId,
  });
  if (!streamed) return simulatedJson(chunk(reply.text, reply.outputTokens, true));
  let sent = '';
  const chunks = reply.pieces.map((piece, index) => {
    sent += piece;
    return chunk(piece, demoTokens(sent), index === reply.pieces.length - 1);
  });
  if (/(^|[?&])alt=sse(&|$)/.test(query)) {
    return simulatedResponse(
      'text/event-stream',
      chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
    );
  }
  return simulatedResponse(
    'application/json',
    chunks.map(
      (c, index) =>
        `${index === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${index === chunks.length - 1 ? ']' : ''}`,
    ),
  );
}

function embedAnswer(
  requests: readonly unknown[],
  shape: (values: { values: number[] }[]) => unknown,
): UpstreamResponse {
  const values: { values: number[] }[] = [];
  for (const request of requests) {
    if (!isObject(request) || !isObject(request.content)) return googleError('content is not specified');
    const dimensions = request.outputDimensionality ?? DEMO_DEFAULT_DIMENSIONS;
    if (
      typeof dimensions !== 'number' ||
      !Number.isInteger(dimensions) ||
      dimensions < 1 ||
      dimensions > DEMO_MAX_DIMENSIONS
    ) {
      return googleError(`outputDimensionality must be 1 to ${DEMO_MAX_DIMENSIONS}.`);
    }
    values.push({ values: demoVector(textsOf(request.content).join(' '), dimensions) });
  }
  return simulatedJson(shape(values));
}

function googleError(message: string): UpstreamResponse {
  return simulatedJson({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }, 400);
}
