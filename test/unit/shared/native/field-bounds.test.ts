import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { checkMessagesBounds } from '../../../../shared/src/native/anthropic/request-bounds.ts';
import { checkNumber, NativeFieldError, oneSpelling } from '../../../../shared/src/native/field-bounds.ts';
import { checkGenerationBounds } from '../../../../shared/src/native/google/request-bounds.ts';
import {
  checkChatCompletionsBounds,
  checkEmbeddingsBounds,
} from '../../../../shared/src/native/openai/request-bounds.ts';
import { CHOICES, TEMPERATURE } from '../../../../shared/src/native/request-ranges.ts';

const catalogue = loadCatalogue();
const model = (id: string) => catalogue.get(id) as CatalogueModel;

/** The refusal `run` throws: its field and problem. */
function refusal(run: () => unknown): { field: string; problem: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof NativeFieldError)) throw error;
    expect(error.status).toBe(400);
    return { field: error.field, problem: error.problem };
  }
  throw new Error('nothing was refused');
}

describe('checkNumber', () => {
  it('takes a number in range, and absent or null as not given', () => {
    expect(checkNumber(16, CHOICES, 'n')).toBe(16);
    expect(checkNumber(0, TEMPERATURE, 'temperature')).toBe(0);
    expect(checkNumber(undefined, CHOICES, 'n')).toBeUndefined();
    expect(checkNumber(null, CHOICES, 'n')).toBeUndefined();
  });

  it('refuses another type, a fraction for an integer and a value out of range, never clamps', () => {
    for (const value of ['3', true, [], {}, Number.NaN, Number.POSITIVE_INFINITY, 1.5]) {
      expect(refusal(() => checkNumber(value, CHOICES, 'n'))).toEqual({
        field: 'n',
        problem: 'invalid_type',
      });
    }
    expect(refusal(() => checkNumber(0, CHOICES, 'n')).problem).toBe('integer_below_min_value');
    expect(refusal(() => checkNumber(17, CHOICES, 'n')).problem).toBe('integer_above_max_value');
    expect(refusal(() => checkNumber(2.01, TEMPERATURE, 't')).problem).toBe('decimal_above_max_value');
  });
});

describe('oneSpelling', () => {
  it('reads either spelling and refuses both at once', () => {
    expect(oneSpelling({ max_output_tokens: 5 }, 'maxOutputTokens', 'max_output_tokens')).toEqual({
      key: 'max_output_tokens',
      value: 5,
    });
    expect(refusal(() => oneSpelling({ topP: 1, top_p: 1 }, 'topP', 'top_p', 'generationConfig.'))).toEqual({
      field: 'generationConfig.topP',
      problem: 'invalid_value',
    });
  });
});

describe('what a hold is sized from: checked values only', () => {
  it('chat completions: max_completion_tokens before max_tokens, n answers', () => {
    const gpt4o = model('openai/gpt-4o');
    expect(checkChatCompletionsBounds(gpt4o, { n: 3, max_completion_tokens: 10, max_tokens: 20 })).toEqual({
      maxOutputTokens: 10,
      choices: 3,
    });
    expect(checkChatCompletionsBounds(gpt4o, {})).toEqual({ maxOutputTokens: undefined, choices: 1 });
    expect(refusal(() => checkChatCompletionsBounds(gpt4o, { max_tokens: 16_385 }))).toEqual({
      field: 'max_tokens',
      problem: 'integer_above_max_value',
    });
  });

  it('messages: a negative, fractional or textual max_tokens never reaches the estimator', () => {
    const sonnet = model('anthropic/claude-sonnet-4-5');
    for (const max_tokens of [-1, 0, 2.5, '100', Number.MAX_SAFE_INTEGER]) {
      expect(refusal(() => checkMessagesBounds(sonnet, { max_tokens })).field).toBe('max_tokens');
    }
    expect(checkMessagesBounds(sonnet, { max_tokens: 64_000 })).toEqual({
      maxOutputTokens: 64_000,
      choices: 1,
    });
  });

  it('gemini: candidateCount and maxOutputTokens under either spelling', () => {
    const flash = model('google/gemini-2.5-flash');
    const body = { generation_config: { candidate_count: 4, maxOutputTokens: 100 } };
    expect(checkGenerationBounds(flash, body)).toEqual({ maxOutputTokens: 100, choices: 4 });
    expect(checkGenerationBounds(flash, {})).toEqual({ maxOutputTokens: undefined, choices: 1 });
  });

  it('embeddings: texts, token ids and arrays of them, none empty', () => {
    for (const input of ['a', ['a', 'b'], [1, 2], [[1], [2, 3]]]) {
      expect(() => checkEmbeddingsBounds({ input })).not.toThrow();
    }
    expect(refusal(() => checkEmbeddingsBounds({ input: [1, null] }))).toEqual({
      field: 'input[1]',
      problem: 'invalid_type',
    });
    expect(refusal(() => checkEmbeddingsBounds({ input: ['a', 3] }))).toEqual({
      field: 'input[1]',
      problem: 'invalid_type',
    });
    expect(refusal(() => checkEmbeddingsBounds({ input: [1, 'a'] }))).toEqual({
      field: 'input[1]',
      problem: 'invalid_type',
    });
    expect(refusal(() => checkEmbeddingsBounds({ input: [[-1]] })).field).toBe('input[0][0]');
  });
});
