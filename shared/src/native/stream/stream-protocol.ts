import { type ObservedEvent, SseObserver } from './sse-observer.ts';

/**
 * What a native relay knows of its stream's protocol besides the usage (usage-accumulator.ts):
 * how much text the stream produced, for the charge of a stream cut after its client left
 * (docs/native.md, "A client that leaves"), and how to end a stream the gateway must stop in the
 * provider's own terms (the api stopping). Like the accumulator, it only looks at the chunks
 * relayed, and never throws.
 */
export interface StreamProtocol {
  push(chunk: Uint8Array): void;
  /** Characters of text produced so far (content, reasoning, tool arguments); undefined for audio. */
  producedCharacters(): number | undefined;
  /**
   * The bytes that end the stream now with an error its clients understand (`message` in it); undefined
   * when it cannot be ended cleanly (binary audio): the connection is then broken off.
   */
  errorEnd(message: string): Uint8Array | undefined;
}

/** An audio stream: no text, and no in-band error (a cut connection is its only failure). */
export function audioProtocol(): StreamProtocol {
  return { push: () => undefined, producedCharacters: () => undefined, errorEnd: () => undefined };
}

/** How one server-sent-event protocol is read and ended. */
export interface SseProtocolRules {
  /** The characters of text one event carries (0 for events without any). */
  textOf(event: ObservedEvent): number;
  /** The error event that ends the stream, given the events seen so far. */
  errorEvent(message: string): string;
}

/** A protocol of server-sent events, read by an `SseObserver` of its own. */
export function sseProtocol(rules: SseProtocolRules): StreamProtocol {
  let produced = 0;
  const sse = new SseObserver((event) => {
    produced += rules.textOf(event);
  });
  const encoder = new TextEncoder();
  return {
    push: (chunk) => sse.push(chunk),
    producedCharacters: () => produced,
    errorEnd: (message) => encoder.encode(rules.errorEvent(message)),
  };
}

/** The length of a string, 0 for anything else. */
export function textLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/** The parsed JSON of an event's data; undefined when it is not a JSON object. */
export function eventJson(data: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The objects of an array value (none for anything else). */
export function objectsOf(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}
