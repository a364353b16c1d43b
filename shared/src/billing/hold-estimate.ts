import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { tokenCostMicros } from './token-pricing.ts';

/**
 * What admission holds while a request runs (docs/money-core.md, "Hold sizing"): an upper bound
 * of its cost computed from its validated parameters and bounded by the model's limits, so that a
 * request stating its output bound can never cost more than it held.
 */

/** Output tokens held per choice when a chat request states no `max_tokens`: a typical reply. */
export const DEFAULT_OUTPUT_ALLOWANCE_TOKENS = 128;

/**
 * The largest `max_tokens` / `max_completion_tokens` the request schema accepts: above every
 * catalogue model's context window; each model's own limit is checked against the request too.
 */
export const MAX_OUTPUT_TOKENS_FIELD = 4_000_000;

/**
 * Bytes of UTF-8 input text counted as one token: generous for prose (about 4 characters a token in
 * English), and a character a token for scripts of 3 bytes a character (CJK).
 */
export const BYTES_PER_TOKEN = 3;

/** Tokens added to every input estimate (message framing, reply priming). */
export const INPUT_OVERHEAD_TOKENS = 16;

/** Tokens held per image part of a chat message, whatever the length of its URL or data. */
export const IMAGE_PART_TOKENS = 2_000;

/**
 * No hold may exceed this (2⁴⁸ µIRT, about 2.8·10⁸ IRT): 32 times below 2⁵³, the largest integer the
 * admission script's Lua doubles hold exactly, so sums of holds and balances stay exact. With the
 * built-in catalogue and the schemas' bounds no request comes near it; a request above it (only a
 * custom catalogue with extreme prices could produce one) is refused, never held at less.
 */
export const MAX_HOLD_MICROS = 2n ** 48n;

type TokenModel = Pick<CatalogueModel, 'pricing' | 'context_window' | 'max_output_tokens'>;

/**
 * The most output tokens one choice of a chat request may ask for on this model: its
 * `max_output_tokens`, else its context window, else the schema's bound.
 */
export function outputTokenLimit(model: TokenModel): number {
  return model.max_output_tokens ?? model.context_window ?? MAX_OUTPUT_TOKENS_FIELD;
}

/** What a chat request's hold is computed from (validated values only). */
export interface ChatHoldInput {
  /** UTF-8 bytes of text input: messages, tools, response format, identity prompt. */
  readonly inputBytes: number;
  /** Image parts of the messages, held at `IMAGE_PART_TOKENS` each. */
  readonly imageParts: number;
  /** `max_completion_tokens` ?? `max_tokens`, when the request states one. */
  readonly maxOutputTokens: number | undefined;
  /** `n`: output is held once per choice. */
  readonly choices: number;
}

/**
 * The hold of a chat request: its input (bounded by the context window) at the full input price,
 * plus per choice its stated output bound or the default allowance, bounded by the model's output
 * limit, at the output price.
 */
export function chatHoldMicros(model: TokenModel, input: ChatHoldInput): bigint {
  const estimated =
    Math.ceil(input.inputBytes / BYTES_PER_TOKEN) +
    input.imageParts * IMAGE_PART_TOKENS +
    INPUT_OVERHEAD_TOKENS;
  const perChoice = Math.min(
    input.maxOutputTokens ?? DEFAULT_OUTPUT_ALLOWANCE_TOKENS,
    outputTokenLimit(model),
  );
  return tokenCostMicros(model.pricing, {
    inputTokens: Math.min(estimated, model.context_window ?? estimated),
    cachedInputTokens: 0,
    outputTokens: perChoice * input.choices,
    reasoningTokens: 0,
  });
}

/** The hold of an embedding request: each input, bounded by the context window, at the input price. */
export function embeddingHoldMicros(model: TokenModel, inputs: readonly string[]): bigint {
  let tokens = INPUT_OVERHEAD_TOKENS;
  for (const text of inputs) {
    const estimated = Math.ceil(utf8Length(text) / BYTES_PER_TOKEN) + 1;
    tokens += Math.min(estimated, model.context_window ?? estimated);
  }
  return tokenCostMicros(model.pricing, {
    inputTokens: tokens,
    cachedInputTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
  });
}

/** The UTF-8 length of a string, in bytes. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** About the UTF-8 length of `JSON.stringify(value)`, without recursion (see `jsonTextLength`). */
export function jsonByteCount(value: unknown): number {
  return jsonTextLength(value, utf8Length);
}

/** About `JSON.stringify(value).length`, without recursion (see `jsonTextLength`). */
export function jsonCharacterCount(value: unknown): number {
  return jsonTextLength(value, (text) => text.length);
}

/**
 * About the length of `JSON.stringify(value)`, strings measured by `measure` (exact for strings
 * without escapes), computed with an explicit stack: no input can overflow the call stack however
 * deeply it nests.
 */
function jsonTextLength(value: unknown, measure: (text: string) => number): number {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') length += measure(item) + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') length += String(item).length;
    else if (item === null) length += 4;
    else if (Array.isArray(item)) {
      length += 1 + Math.max(item.length, 1);
      for (const element of item) pending.push(element);
    } else if (typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>);
      length += 1 + Math.max(entries.length, 1);
      for (const [key, element] of entries) {
        length += measure(key) + 3;
        pending.push(element);
      }
    }
  }
  return length;
}
