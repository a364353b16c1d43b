import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { type Calibration, type EstimateBasis, type HoldBasis, NO_CALIBRATION } from './hold-calibration.ts';
import { tokenCostMicros } from './token-pricing.ts';

/**
 * What admission holds while a request runs (docs/money-core.md, "Hold sizing"), computed from its
 * validated parameters and bounded by the model's limits: what the request states (an output bound,
 * a number of images) at its price, and, for what it does not state (the length of a reply without
 * `max_tokens`, how the provider tokenizes the input), what the model's recent answers used.
 */

/**
 * A request's hold as admission takes it. `bounded` when the request fixes its own worst case (a
 * stated output bound, a priced quantity): it is admitted only when the wallet above its floor and
 * the key's cap can pay all of it. Otherwise the hold is an estimate of the likely cost, and the
 * request is admitted while the wallet is above its floor.
 */
export interface HoldEstimate {
  readonly micros: bigint;
  readonly bounded: boolean;
  /** What a token estimate was computed from, so that the answer's usage refines the next ones. */
  readonly basis?: HoldBasis;
}

/** A hold whose amount is the request's exact or stated cost (media priced per image, character, second). */
export function boundedHold(micros: bigint): HoldEstimate {
  return { micros, bounded: true };
}

/**
 * Output tokens held per choice when a chat request states no `max_tokens` and no answer of any
 * model has been seen yet by this process (afterwards: what the model's answers used).
 */
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

type TokenModel = Pick<CatalogueModel, 'id' | 'pricing' | 'context_window' | 'max_output_tokens'>;

/**
 * The most output tokens one choice of a chat request may ask for on this model: its
 * `max_output_tokens`, else its context window, else the schema's bound.
 */
export function outputTokenLimit(model: TokenModel): number {
  return model.max_output_tokens ?? model.context_window ?? MAX_OUTPUT_TOKENS_FIELD;
}

/** What a chat request's hold is computed from (validated values only). */
export interface ChatHoldInput {
  /** Which byte heuristic `inputBytes` follows (default `chat`: message text; `native`: a whole body). */
  readonly basis?: EstimateBasis;
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
 * plus per choice its stated output bound, or else the output its model's answers used lately (the
 * default allowance before any), bounded by the model's output limit, at the output price. The
 * input is the byte heuristic scaled by how the model's answers compared to it (for a stated bound,
 * only by answers to requests of the same estimate).
 */
export function chatHold(
  model: TokenModel,
  input: ChatHoldInput,
  calibration: Calibration = NO_CALIBRATION,
): HoldEstimate {
  const basis = input.basis ?? 'chat';
  const estimated =
    Math.ceil(input.inputBytes / BYTES_PER_TOKEN) +
    input.imageParts * IMAGE_PART_TOKENS +
    INPUT_OVERHEAD_TOKENS;
  const figures = calibration.figures(model.id, basis, estimated);
  const stated = input.maxOutputTokens;
  // A stated bound must cover the input too: the byte heuristic (generous for text), unless requests
  // of exactly this estimate showed what the provider counts for it.
  const learned = stated === undefined || figures.sameSize;
  const calibrated = calibratedTokens(estimated, learned ? figures.inputRatio : 1);
  const inputTokens = Math.min(calibrated, model.context_window ?? calibrated);
  const perChoice = Math.min(
    stated ?? figures.outputTokens ?? DEFAULT_OUTPUT_ALLOWANCE_TOKENS,
    outputTokenLimit(model),
  );
  const micros = tokenCostMicros(model.pricing, {
    inputTokens,
    cachedInputTokens: learned ? Math.floor(inputTokens * figures.cachedShare) : 0,
    outputTokens: perChoice * input.choices,
    reasoningTokens: 0,
  });
  return {
    micros,
    bounded: stated !== undefined,
    basis: { model: model.id, basis, estimatedInputTokens: estimated, choices: input.choices },
  };
}

/**
 * The byte heuristic's tokens scaled by a calibrated ratio, rounded up: at least what the answers
 * the ratio came from counted (a ratio taken from the same text gives back exactly its count, not
 * one more from the floating-point product).
 */
export function calibratedTokens(estimated: number, ratio: number): number {
  return Math.ceil(estimated * ratio - 1e-9);
}

/** The amount of `chatHold` without calibration: the plain byte heuristic and default allowance. */
export function chatHoldMicros(model: TokenModel, input: ChatHoldInput): bigint {
  return chatHold(model, input).micros;
}

/**
 * The hold of an embedding request: each input, bounded by the context window, at the input price,
 * scaled by how the model's answers compared to the byte heuristic. An estimate (no output bound
 * to state): admitted while the wallet is above its floor.
 */
export function embeddingHold(
  model: TokenModel,
  inputs: readonly string[],
  calibration: Calibration = NO_CALIBRATION,
): HoldEstimate {
  let tokens = INPUT_OVERHEAD_TOKENS;
  for (const text of inputs) {
    const estimated = Math.ceil(utf8Length(text) / BYTES_PER_TOKEN) + 1;
    tokens += Math.min(estimated, model.context_window ?? estimated);
  }
  const figures = calibration.figures(model.id, 'chat', tokens);
  const calibrated = calibratedTokens(tokens, figures.inputRatio);
  const micros = tokenCostMicros(model.pricing, {
    inputTokens: calibrated,
    cachedInputTokens: Math.floor(calibrated * figures.cachedShare),
    outputTokens: 0,
    reasoningTokens: 0,
  });
  return {
    micros,
    bounded: false,
    basis: { model: model.id, basis: 'chat', estimatedInputTokens: tokens, choices: 1 },
  };
}

/** The amount of `embeddingHold` without calibration. */
export function embeddingHoldMicros(model: TokenModel, inputs: readonly string[]): bigint {
  return embeddingHold(model, inputs).micros;
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
