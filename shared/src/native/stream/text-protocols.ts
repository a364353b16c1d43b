/**
 * The text protocols' `StreamProtocol`s: what text each event carries, and the error event that
 * ends a stream in the provider's own format (each as its API reference documents it mid-stream).
 */
import { isObject } from '../native-usage.ts';
import { JsonArrayObserver } from './json-array-observer.ts';
import type { ObservedEvent } from './sse-observer.ts';
import { eventJson, objectsOf, type StreamProtocol, sseProtocol, textLength } from './stream-protocol.ts';

/**
 * Anthropic's Messages stream: text, thinking and tool input arrive in `content_block_delta`
 * events; a failure is an `error` event (`overloaded_error`: retried by Anthropic's SDKs).
 */
export function anthropicProtocol(): StreamProtocol {
  return sseProtocol({
    textOf: (event) => {
      if (event.event !== 'content_block_delta') return 0;
      const delta = eventJson(event.data)?.delta;
      if (!isObject(delta)) return 0;
      return textLength(delta.text) + textLength(delta.thinking) + textLength(delta.partial_json);
    },
    errorEvent: (message) =>
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`,
  });
}

/** OpenAI's Chat Completions stream: choices' deltas; a failure is a `data: {"error": …}` event. */
export function chatCompletionsProtocol(): StreamProtocol {
  return sseProtocol({
    textOf: (event) => {
      if (event.data === '[DONE]') return 0;
      let characters = 0;
      for (const choice of objectsOf(eventJson(event.data)?.choices)) {
        const delta = isObject(choice.delta) ? choice.delta : {};
        characters +=
          textLength(delta.content) + textLength(delta.reasoning_content) + textLength(delta.refusal);
        for (const call of objectsOf(delta.tool_calls))
          characters += textLength(isObject(call.function) ? call.function.arguments : undefined);
      }
      return characters;
    },
    errorEvent: (message) =>
      `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
  });
}

/**
 * OpenAI's Responses stream: every `*.delta` event carries text (output, reasoning, refusal, tool
 * arguments); a failure is an `error` event, numbered after the events before it.
 */
export function responsesProtocol(): StreamProtocol {
  let sequence = -1;
  return sseProtocol({
    textOf: (event) => {
      const json = eventJson(event.data);
      if (typeof json?.sequence_number === 'number') sequence = json.sequence_number;
      const type = json?.type;
      return typeof type === 'string' && type.endsWith('.delta') ? textLength(json?.delta) : 0;
    },
    errorEvent: (message) => {
      const error = {
        type: 'error',
        code: 'server_error',
        message,
        param: null,
        sequence_number: sequence + 1,
      };
      return `event: error\ndata: ${JSON.stringify(error)}\n\n`;
    },
  });
}

/** Gemini's error object for a service that is unavailable for now. */
function geminiError(message: string) {
  return { error: { code: 503, message, status: 'UNAVAILABLE' } };
}

/** The text of a `GenerateContentResponse` chunk: its candidates' text parts. */
function geminiText(chunk: unknown): number {
  if (!isObject(chunk)) return 0;
  let characters = 0;
  for (const candidate of objectsOf(chunk.candidates)) {
    const content = isObject(candidate.content) ? candidate.content : {};
    for (const part of objectsOf(content.parts)) characters += textLength(part.text);
  }
  return characters;
}

/**
 * Gemini's `streamGenerateContent`: server-sent events with `alt=sse`, else one JSON array whose
 * elements are the chunks. An error is an element (an event) holding Gemini's error object; in the
 * array it closes the array, which cannot be done in the middle of an element.
 */
export function geminiProtocol(sse: boolean): StreamProtocol {
  if (sse)
    return sseProtocol({
      textOf: (event: ObservedEvent) => geminiText(eventJson(event.data)),
      errorEvent: (message) => `data: ${JSON.stringify(geminiError(message))}\n\n`,
    });
  let produced = 0;
  const array = new JsonArrayObserver((element) => {
    produced += geminiText(element);
  });
  const encoder = new TextEncoder();
  return {
    push: (chunk) => array.push(chunk),
    producedCharacters: () => produced,
    errorEnd: (message) => {
      if (array.problem !== undefined) return undefined;
      const element = JSON.stringify(geminiError(message));
      switch (array.position) {
        case 'before-array':
          return encoder.encode(`[${element}]`);
        case 'between':
          return encoder.encode(`${array.elements > 0 ? ',' : ''}${element}]`);
        default:
          return undefined;
      }
    },
  };
}
