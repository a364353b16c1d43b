/**
 * The bounds of Gemini's requests (field-bounds.ts), read under either spelling the API takes
 * (`generationConfig.candidateCount` or `generation_config.candidate_count`; both at once is
 * refused): a generation's `candidateCount` as `/v1`'s `n`, `maxOutputTokens` as its
 * `max_tokens`, the sampling ranges; an embedding's texts as `/v1/embeddings` takes its inputs
 * (none empty, at most `MAX_EMBEDDING_INPUTS` requests) and `outputDimensionality` as its
 * `dimensions`.
 */
import type { CatalogueModel } from '../../catalogue/catalogue.ts';
import {
  type CheckedOutputBound,
  checkNumber,
  NativeFieldError,
  type NumberRange,
  oneSpelling,
} from '../field-bounds.ts';
import { isObject } from '../native-usage.ts';
import * as ranges from '../request-ranges.ts';

type Body = Readonly<Record<string, unknown>>;

/** A generation's checked fields: JSON name, proto name, range. */
function generationRanges(model: CatalogueModel): ReadonlyArray<readonly [string, string, NumberRange]> {
  return [
    ['candidateCount', 'candidate_count', ranges.CHOICES],
    ['maxOutputTokens', 'max_output_tokens', ranges.outputTokens(model)],
    ['temperature', 'temperature', ranges.TEMPERATURE],
    ['topP', 'top_p', ranges.TOP_P],
    ['presencePenalty', 'presence_penalty', ranges.PENALTY],
    ['frequencyPenalty', 'frequency_penalty', ranges.PENALTY],
    ['logprobs', 'logprobs', ranges.TOP_LOGPROBS],
    ['seed', 'seed', ranges.SEED],
  ];
}

/** Checks a generateContent or streamGenerateContent body; what its hold is sized from. */
export function checkGenerationBounds(model: CatalogueModel, body: Body): CheckedOutputBound {
  const config = objectField(body, 'generationConfig', 'generation_config', '');
  if (config === undefined) return { maxOutputTokens: undefined, choices: 1 };
  const values = new Map<string, number>();
  for (const [camel, snake, range] of generationRanges(model)) {
    const { key, value } = oneSpelling(config.object, camel, snake, config.prefix);
    const checked = checkNumber(value, range, `${config.prefix}${key}`);
    if (checked !== undefined) values.set(camel, checked);
  }
  return { maxOutputTokens: values.get('maxOutputTokens'), choices: values.get('candidateCount') ?? 1 };
}

/** Checks an embedContent body, or each request of a batchEmbedContents body (`batch`). */
export function checkEmbedBounds(body: Body, batch: boolean): void {
  if (!batch) {
    checkEmbedRequest(body, '');
    return;
  }
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    throw new NativeFieldError(
      'requests',
      'empty_array',
      'Invalid `requests`: it must be a non-empty array.',
    );
  }
  if (requests.length > ranges.MAX_EMBEDDING_INPUTS) {
    throw new NativeFieldError(
      'requests',
      'array_above_max_length',
      `Invalid \`requests\`: ${requests.length} requests is above ${ranges.MAX_EMBEDDING_INPUTS}.`,
    );
  }
  requests.forEach((request, index) => {
    const prefix = `requests[${index}].`;
    if (!isObject(request)) {
      throw new NativeFieldError(
        `requests[${index}]`,
        'invalid_type',
        `Invalid \`requests[${index}]\`: it must be an object.`,
      );
    }
    checkEmbedRequest(request, prefix);
  });
}

/**
 * One text to embed: `content.parts` not empty, each text part's `text` a non-empty string (parts
 * other than text are refused apart, as unpriced), `outputDimensionality` in range.
 */
function checkEmbedRequest(request: Body, prefix: string): void {
  const dimensions = oneSpelling(request, 'outputDimensionality', 'output_dimensionality', prefix);
  checkNumber(dimensions.value, ranges.EMBEDDING_DIMENSIONS, `${prefix}${dimensions.key}`);
  const content = request.content;
  const parts = isObject(content) ? content.parts : undefined;
  if (!Array.isArray(parts) || parts.length === 0) {
    const field = `${prefix}content.parts`;
    throw new NativeFieldError(
      field,
      'empty_array',
      `Invalid \`${field}\`: the content to embed must have parts.`,
    );
  }
  parts.forEach((part, index) => {
    if (!isObject(part) || part.text === undefined) return;
    const field = `${prefix}content.parts[${index}].text`;
    if (typeof part.text !== 'string') {
      throw new NativeFieldError(field, 'invalid_type', `Invalid \`${field}\`: it must be a string.`);
    }
    if (part.text === '')
      throw new NativeFieldError(field, 'empty_string', `Invalid \`${field}\`: it must not be empty.`);
  });
}

/** An object field under either spelling, with the prefix of its members' names; undefined when absent. */
function objectField(
  body: Body,
  camel: string,
  snake: string,
  prefix: string,
): { readonly object: Body; readonly prefix: string } | undefined {
  const { key, value } = oneSpelling(body, camel, snake, prefix);
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    throw new NativeFieldError(
      `${prefix}${key}`,
      'invalid_type',
      `Invalid \`${prefix}${key}\`: it must be an object.`,
    );
  }
  return { object: value, prefix: `${prefix}${key}.` };
}
