import { describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../../../shared/src/catalogue/load-catalogue.ts';
import { AppError } from '../../../../shared/src/errors/app-error.ts';
import { checkParams, refuseUntakenParams } from '../../../../shared/src/native/check-params.ts';

const catalogue = loadCatalogue();
const model = (id: string) => catalogue.get(id) as CatalogueModel;

describe('checkParams', () => {
  it('names the sampling parameters a GPT-5 reasoning model cannot take, in body order', () => {
    const body = {
      model: 'gpt-5',
      top_p: 0.9,
      input: 'hi',
      temperature: 0.2,
      logit_bias: { 1: 2 },
      top_logprobs: 2,
    };
    expect(checkParams(model('openai/gpt-5'), body)).toEqual([
      'top_p',
      'temperature',
      'logit_bias',
      'top_logprobs',
    ]);
  });

  it('accepts a fixed parameter at its one value, and null as not sent', () => {
    const body = {
      temperature: 1,
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      logprobs: false,
      logit_bias: null,
    };
    expect(checkParams(model('openai/o3'), body)).toEqual([]);
    expect(checkParams(model('openai/o3'), { logprobs: true, presence_penalty: 0.5 })).toEqual([
      'logprobs',
      'presence_penalty',
    ]);
  });

  it('lets GPT-5.1 take temperature, top_p and logprobs while its reasoning effort is none (its default)', () => {
    const sampling = { temperature: 0.3, top_p: 0.8, logprobs: true, top_logprobs: 3 };
    const gpt51 = model('openai/gpt-5.1');
    expect(checkParams(gpt51, sampling)).toEqual([]);
    expect(checkParams(gpt51, { ...sampling, reasoning_effort: 'none' })).toEqual([]);
    expect(checkParams(gpt51, { ...sampling, reasoning: { effort: 'none' } })).toEqual([]);
    expect(checkParams(gpt51, { ...sampling, reasoning_effort: 'low' })).toEqual([
      'temperature',
      'top_p',
      'logprobs',
      'top_logprobs',
    ]);
    expect(checkParams(gpt51, { ...sampling, reasoning: { effort: 'high' } })).toHaveLength(4);
    expect(checkParams(gpt51, { presence_penalty: 1, logit_bias: {} })).toEqual([
      'presence_penalty',
      'logit_bias',
    ]);
  });

  it('restricts nothing on models without rules', () => {
    expect(checkParams(model('openai/gpt-4.1'), { temperature: 0.1, top_p: 0.5, logprobs: true })).toEqual(
      [],
    );
    expect(checkParams(model('openai/gpt-4o-search-preview'), { temperature: 0.1 })).toEqual(['temperature']);
  });
});

describe('refuseUntakenParams', () => {
  it('refuses with 400 naming each parameter, with its one value where it has one', () => {
    const refusal = (() => {
      try {
        refuseUntakenParams(model('openai/gpt-5'), { temperature: 0.2, logit_bias: { 1: 2 } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      message: 'The model `openai/gpt-5` does not take `temperature` (only 1), `logit_bias`.',
    });
  });

  it('lets through a request the model takes', () => {
    expect(() => refuseUntakenParams(model('openai/gpt-5'), { temperature: 1, max_tokens: 5 })).not.toThrow();
    expect(() => refuseUntakenParams(model('openai/gpt-4.1'), { temperature: 0 })).not.toThrow();
  });
});
