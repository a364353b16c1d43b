/**
 * What one call of a provider-native API used, in the terms the gateway prices it: tokens split by
 * the price each part takes, characters of text, or seconds of audio. Every protocol's usage
 * extraction (`<provider>/usage.ts`) ends in one of these; `nativeCost` prices it.
 */

/** A billable part the catalogue has no price field for; `nativeCost` refuses any with quantity > 0. */
export interface UnpricedPart {
  /** What it is, as named in the refusal (e.g. `file_search_calls`, `audio_input_tokens`). */
  readonly name: string;
  readonly quantity: number;
}

/** Token usage. The input parts are disjoint: together they are every input token of the call. */
export interface NativeTokenUsage {
  readonly kind: 'tokens';
  /** Input tokens at the plain input price (neither read from nor written to a prompt cache). */
  readonly inputTokens: number;
  /** Input tokens read from a prompt cache (`cached_input`). */
  readonly cacheReadTokens: number;
  /** Input tokens written to a prompt cache that lives 5 minutes (`cache_write_5m`). */
  readonly cacheWrite5mTokens: number;
  /** Input tokens written to a prompt cache that lives 1 hour (`cache_write_1h`). */
  readonly cacheWrite1hTokens: number;
  /** Every billed output token, reasoning included (`output`). */
  readonly outputTokens: number;
  /** The part of `outputTokens` spent on reasoning: reported, not priced apart. */
  readonly reasoningTokens: number;
  /** Server-side web searches (`web_search_per_1k`). */
  readonly webSearchRequests: number;
  /** Billable parts no catalogue price covers. */
  readonly unpriced: readonly UnpricedPart[];
}

/** Characters of input text (text to speech, `1K_chars`). */
export interface NativeCharacterUsage {
  readonly kind: 'characters';
  readonly characters: number;
}

/** Seconds of audio, heard or produced (speech to text per `minute`, sound per `second`). */
export interface NativeDurationUsage {
  readonly kind: 'seconds';
  readonly seconds: number;
}

export type NativeUsage = NativeTokenUsage | NativeCharacterUsage | NativeDurationUsage;

/** Token usage with every part not given at zero. */
export function tokenUsage(parts: Partial<Omit<NativeTokenUsage, 'kind'>>): NativeTokenUsage {
  return {
    kind: 'tokens',
    inputTokens: parts.inputTokens ?? 0,
    cacheReadTokens: parts.cacheReadTokens ?? 0,
    cacheWrite5mTokens: parts.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: parts.cacheWrite1hTokens ?? 0,
    outputTokens: parts.outputTokens ?? 0,
    reasoningTokens: parts.reasoningTokens ?? 0,
    webSearchRequests: parts.webSearchRequests ?? 0,
    unpriced: (parts.unpriced ?? []).filter((part) => part.quantity > 0),
  };
}

/** A non-negative whole count from a wire value; anything else (absent, null, negative, fractional) is 0. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
