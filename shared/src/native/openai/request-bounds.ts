/**
 * The bounds of OpenAI's native requests (field-bounds.ts): those `/v1` puts on the same fields of
 * Chat Completions and Embeddings, and on the Responses API's spelling of them.
 */
import type { CatalogueModel } from '../../catalogue/catalogue.ts';
import {
  type CheckedOutputBound,
  checkedNumbers,
  checkNumber,
  NativeFieldError,
  type NumberRange,
} from '../field-bounds.ts';
import * as ranges from '../request-ranges.ts';

type Body = Readonly<Record<string, unknown>>;

/** Chat Completions: `n`, both output bounds and the sampling ranges, as on `/v1`. */
export function checkChatCompletionsBounds(model: CatalogueModel, body: Body): CheckedOutputBound {
  const output = ranges.outputTokens(model);
  const values = checkedNumbers(body, {
    n: ranges.CHOICES,
    max_tokens: output,
    max_completion_tokens: output,
    temperature: ranges.TEMPERATURE,
    top_p: ranges.TOP_P,
    frequency_penalty: ranges.PENALTY,
    presence_penalty: ranges.PENALTY,
    top_logprobs: ranges.TOP_LOGPROBS,
    seed: ranges.SEED,
  });
  return { maxOutputTokens: values.max_completion_tokens ?? values.max_tokens, choices: values.n ?? 1 };
}

/** Responses: `max_output_tokens` and the sampling ranges. */
export function checkResponsesBounds(model: CatalogueModel, body: Body): CheckedOutputBound {
  const values = checkedNumbers(body, {
    max_output_tokens: ranges.outputTokens(model),
    temperature: ranges.TEMPERATURE,
    top_p: ranges.TOP_P,
    top_logprobs: ranges.TOP_LOGPROBS,
  });
  return { maxOutputTokens: values.max_output_tokens, choices: 1 };
}

/** A token id: a whole number a JSON number carries exactly. */
const TOKEN_ID: NumberRange = { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER };

/**
 * Embeddings: `dimensions`, and an `input` that is a non-empty text or a non-empty array (at most
 * `MAX_EMBEDDING_INPUTS` items) of non-empty texts, of token ids, or of non-empty arrays of token
 * ids. An empty input is refused as `/v1` refuses it: it would be an answer billed at nothing.
 */
export function checkEmbeddingsBounds(body: Body): void {
  checkNumber(body.dimensions, ranges.EMBEDDING_DIMENSIONS, 'dimensions');
  const input = body.input;
  if (!Array.isArray(input)) {
    checkInput(input, 'input');
    return;
  }
  checkNotEmpty('input', input);
  if (input.length > ranges.MAX_EMBEDDING_INPUTS) {
    throw new NativeFieldError(
      'input',
      'array_above_max_length',
      `Invalid \`input\`: ${input.length} items is above ${ranges.MAX_EMBEDDING_INPUTS}.`,
    );
  }
  // An array of token ids is one input; otherwise each item is an input of its own.
  if (typeof input[0] === 'number') checkTokenIds(input, 'input');
  else
    input.forEach((item, index) => {
      checkInput(item, `input[${index}]`);
    });
}

/** One input: a non-empty text or a non-empty array of token ids. */
function checkInput(item: unknown, field: string): void {
  if (typeof item !== 'string' && !Array.isArray(item)) {
    throw new NativeFieldError(
      field,
      'invalid_type',
      `Invalid \`${field}\`: it must be a text or token ids.`,
    );
  }
  checkNotEmpty(field, item);
  if (Array.isArray(item)) checkTokenIds(item, field);
}

function checkTokenIds(ids: readonly unknown[], field: string): void {
  ids.forEach((id, index) => {
    const at = `${field}[${index}]`;
    if (typeof id !== 'number')
      throw new NativeFieldError(at, 'invalid_type', `Invalid \`${at}\`: it must be a token id.`);
    checkNumber(id, TOKEN_ID, at);
  });
}

function checkNotEmpty(field: string, value: string | readonly unknown[]): void {
  if (value.length > 0) return;
  const problem = typeof value === 'string' ? 'empty_string' : 'empty_array';
  throw new NativeFieldError(field, problem, `Invalid \`${field}\`: it must not be empty.`);
}
