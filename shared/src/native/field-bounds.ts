/**
 * The bounds the gateway puts on the fields of a native request, the same as `/v1` puts on its
 * own (docs/native.md, "Bounds"): a value the price or the size of the answer depends on (choices,
 * output tokens, inputs to embed, seconds of sound) is checked before anything is held or sent,
 * never clamped, and so are the sampling ranges `/v1` checks. A value out of bounds throws
 * `NativeFieldError`, which each native API answers in its provider's own error format, as the
 * provider answers a value it refuses. Absent and `null` fields are not checked (the provider's
 * default applies); whatever these bounds do not cover the provider judges.
 */
import { AppError } from '../errors/app-error.ts';

/** What is wrong with a field, named as OpenAI's API names it (its error `code`). */
export type FieldProblem =
  | 'invalid_type'
  | 'integer_below_min_value'
  | 'integer_above_max_value'
  | 'decimal_below_min_value'
  | 'decimal_above_max_value'
  | 'empty_string'
  | 'empty_array'
  | 'array_above_max_length'
  | 'string_above_max_length'
  | 'invalid_value';

/**
 * A field of a native request out of the gateway's bounds: 400, answered in the provider's own
 * format where the native API renders it (`nativeFieldErrorHandler`), else as any `AppError`.
 */
export class NativeFieldError extends AppError {
  /** The field as the body spells it, dotted: `generationConfig.candidateCount`, `input[3]`. */
  readonly field: string;
  readonly problem: FieldProblem;

  constructor(field: string, problem: FieldProblem, message: string) {
    super(400, 'invalid_request_error', 'invalid_request_error', message);
    this.name = 'NativeFieldError';
    this.field = field;
    this.problem = problem;
  }
}

/** What a token call's hold is sized from, once its bounds are checked. */
export interface CheckedOutputBound {
  /** The output tokens it asks for per answer; undefined when it states none. */
  readonly maxOutputTokens: number | undefined;
  /** Answers it asks for (`n`, `candidateCount`). */
  readonly choices: number;
}

/** The range of a number field. */
export interface NumberRange {
  readonly integer: boolean;
  readonly min: number;
  readonly max: number;
  /** Why the maximum is what it is, when it is the model's (`the 16384 output tokens …`). */
  readonly maxReason?: string;
}

/**
 * `value`, the field `field` of a request, checked against `range`; undefined when absent or
 * `null`. Throws `NativeFieldError` for another type, a fraction where an integer is wanted, or a
 * value outside the range.
 */
export function checkNumber(value: unknown, range: NumberRange, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const kind = range.integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (range.integer && !Number.isInteger(value))) {
    throw new NativeFieldError(field, 'invalid_type', `Invalid \`${field}\`: it must be ${kind}.`);
  }
  const number = range.integer ? 'integer' : 'decimal';
  if (value < range.min) {
    const problem = `${number}_below_min_value` as const;
    throw new NativeFieldError(field, problem, `Invalid \`${field}\`: ${value} is below ${range.min}.`);
  }
  if (value > range.max) {
    const limit = range.maxReason ?? String(range.max);
    const problem = `${number}_above_max_value` as const;
    throw new NativeFieldError(field, problem, `Invalid \`${field}\`: ${value} is above ${limit}.`);
  }
  return value;
}

/**
 * Checks each of `ranges` (key → range) on `object`, field names prefixed by `prefix`
 * (`generationConfig.`), and returns the values present.
 */
export function checkedNumbers<K extends string>(
  object: Readonly<Record<string, unknown>>,
  ranges: Readonly<Record<K, NumberRange>>,
  prefix = '',
): Partial<Record<K, number>> {
  const values: Partial<Record<K, number>> = {};
  for (const key of Object.keys(ranges) as K[]) {
    const value = checkNumber(object[key], ranges[key], `${prefix}${key}`);
    if (value !== undefined) values[key] = value;
  }
  return values;
}

/**
 * A text field that must be a non-empty string of at most `maxCodePoints` Unicode code points
 * (as `/v1` counts a string's length); returns its length in code points.
 */
export function checkedText(
  object: Readonly<Record<string, unknown>>,
  key: string,
  maxCodePoints: number,
  field: string = key,
): number {
  const value = object[key];
  if (typeof value !== 'string') {
    throw new NativeFieldError(field, 'invalid_type', `Invalid \`${field}\`: it must be a string.`);
  }
  if (value === '')
    throw new NativeFieldError(field, 'empty_string', `Invalid \`${field}\`: it must not be empty.`);
  const length = [...value].length;
  if (length > maxCodePoints) {
    throw new NativeFieldError(
      field,
      'string_above_max_length',
      `Invalid \`${field}\`: ${length} characters is above ${maxCodePoints}.`,
    );
  }
  return length;
}

/**
 * The value of a field a protocol reads under two spellings (Google's JSON name and proto name:
 * `maxOutputTokens`, `max_output_tokens`), or the client's 400 when both are given: which one the
 * provider reads is not the gateway's to guess, and the hold depends on it.
 */
export function oneSpelling(
  object: Readonly<Record<string, unknown>>,
  camel: string,
  snake: string,
  prefix = '',
): { readonly key: string; readonly value: unknown } {
  const hasCamel = object[camel] !== undefined;
  const hasSnake = object[snake] !== undefined;
  if (hasCamel && hasSnake && camel !== snake) {
    throw new NativeFieldError(
      `${prefix}${camel}`,
      'invalid_value',
      `Invalid body: \`${prefix}${camel}\` and \`${prefix}${snake}\` are the same field; send one.`,
    );
  }
  const key = hasSnake ? snake : camel;
  return { key, value: object[key] };
}
