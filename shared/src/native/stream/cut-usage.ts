import type { NativeUsage } from '../native-usage.ts';
import { tokenUsage } from '../native-usage.ts';

/** What a cut stream's charge is estimated from, besides what its upstream reported. */
export interface CutStream {
  /** Characters of text it produced (`StreamProtocol.producedCharacters`); undefined for audio. */
  readonly producedCharacters: number | undefined;
  /** The request body's bytes, as sent upstream (the input, when the upstream reported none). */
  readonly requestBytes: number;
  /** The model's context window: no input estimate exceeds it. */
  readonly contextWindow: number | undefined;
}

/** Characters (or body bytes) counted as one token when a stream's usage is estimated. */
const CHARACTERS_PER_TOKEN = 4;

/**
 * The usage of a native stream cut after its client left, before its upstream reported its usage
 * (docs/native.md, "A client that leaves"): an audio stream's usage is what its request or its
 * audio fixed (as reported); a text stream is charged the input its upstream reported, else one
 * token per 4 bytes of the request body (at most the context window), and the larger of the
 * output it reported and one token per 4 characters it produced.
 */
export function cutStreamUsage(reported: NativeUsage | undefined, cut: CutStream): NativeUsage | undefined {
  if (cut.producedCharacters === undefined || (reported !== undefined && reported.kind !== 'tokens'))
    return reported;
  const outputTokens = Math.max(
    reported?.outputTokens ?? 0,
    Math.ceil(cut.producedCharacters / CHARACTERS_PER_TOKEN),
  );
  const reportedInput =
    reported === undefined
      ? 0
      : reported.inputTokens +
        reported.cacheReadTokens +
        reported.cacheWrite5mTokens +
        reported.cacheWrite1hTokens;
  if (reported !== undefined && reportedInput > 0) return { ...reported, outputTokens };
  const estimated = Math.ceil(cut.requestBytes / CHARACTERS_PER_TOKEN);
  return tokenUsage({
    ...reported,
    inputTokens: Math.min(estimated, cut.contextWindow ?? estimated),
    outputTokens,
  });
}
