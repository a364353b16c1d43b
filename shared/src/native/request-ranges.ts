/**
 * The ranges of the request fields `/v1` takes (its JSON schemas are built from these) and the
 * native APIs apply to their own spelling of the same fields (`field-bounds.ts`), so that no route
 * takes what another refuses. Those a price depends on size the holds (docs/money-core.md, "Hold
 * sizing"); the sampling ranges are checked alike.
 */
import { outputTokenLimit } from '../billing/hold-estimate.ts';
import type { CatalogueModel } from '../catalogue/catalogue.ts';
import type { NumberRange } from './field-bounds.ts';

/** Answers one request may ask for (`n`; Gemini's `candidateCount`). */
export const MAX_CHOICES = 16;
export const CHOICES: NumberRange = { integer: true, min: 1, max: MAX_CHOICES };
export const TEMPERATURE: NumberRange = { integer: false, min: 0, max: 2 };
export const TOP_P: NumberRange = { integer: false, min: 0, max: 1 };
/** `frequency_penalty`, `presence_penalty`. */
export const PENALTY: NumberRange = { integer: false, min: -2, max: 2 };
export const TOP_LOGPROBS: NumberRange = { integer: true, min: 0, max: 20 };
/** Integers a JSON number carries exactly: a larger seed would reach the provider rounded. */
export const SEED: NumberRange = {
  integer: true,
  min: -Number.MAX_SAFE_INTEGER,
  max: Number.MAX_SAFE_INTEGER,
};

/** Inputs one embeddings request may embed. */
export const MAX_EMBEDDING_INPUTS = 2048;
/** `dimensions` (Gemini's `outputDimensionality`). */
export const EMBEDDING_DIMENSIONS: NumberRange = { integer: true, min: 1, max: 65_536 };

/** Characters (code points) of the text of one speech request. */
export const MAX_SPEECH_CHARACTERS = 10_000;
/** `speed` of speech (ElevenLabs' `voice_settings.speed`). */
export const SPEECH_SPEED: NumberRange = { integer: false, min: 0.25, max: 4 };

/**
 * An output bound (`max_tokens`, `maxOutputTokens`, …): 1 to what the model can produce, its
 * `max_output_tokens`, else its context window (as `/v1` checks `max_tokens`).
 */
export function outputTokens(model: CatalogueModel): NumberRange {
  const limit = outputTokenLimit(model);
  const maxReason =
    model.max_output_tokens === null
      ? `the ${limit}-token context window of the model \`${model.id}\``
      : `the ${limit} output tokens the model \`${model.id}\` can produce`;
  return { integer: true, min: 1, max: limit, maxReason };
}
