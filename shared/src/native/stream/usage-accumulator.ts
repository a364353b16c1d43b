import type { NativeTokenUsage, NativeUsage } from '../native-usage.ts';

/**
 * What a stream reported about its usage by the time it ended (or was cut): tokens for the text
 * protocols, characters or seconds for audio streams.
 */
export interface StreamUsage<U extends NativeUsage = NativeTokenUsage> {
  /** The latest usage the stream reported; undefined when it reported none. */
  readonly usage: U | undefined;
  /** Whether the protocol's final event arrived (a cut stream reports what it had so far). */
  readonly complete: boolean;
  /** Why observing stopped early (an event that is not JSON, an oversized event); for the log. */
  readonly problem: string | undefined;
}

/**
 * Observes an upstream response body chunk by chunk, as it is relayed, to learn the usage the
 * provider reports. It never alters, holds back or consumes the bytes: `push` only looks at the
 * chunk (events split across chunks are reassembled from a private copy), never throws, and the
 * relay writes the very same chunk to the client.
 */
export interface UsageAccumulator<U extends NativeUsage = NativeTokenUsage> {
  push(chunk: Uint8Array): void;
  /** The body ended or was cut: the usage reported until now. Call once. */
  finish(): StreamUsage<U>;
}

/**
 * Relays `body` unchanged, chunk for chunk (the same objects, in order, each yielded as soon as it
 * arrives), while `accumulator` observes each one. The relay's own wiring can call
 * `accumulator.finish()` once the iteration ends, whether completely or by a `return`/`throw`.
 */
export async function* observed(
  body: AsyncIterable<Uint8Array>,
  accumulator: UsageAccumulator<NativeUsage>,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of body) {
    accumulator.push(chunk);
    yield chunk;
  }
}
