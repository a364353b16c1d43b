import { describe, expect, it } from 'vitest';
import { supportsNativeStructuredOutputs } from '../../../../../shared/src/providers/anthropic/index.ts';

describe('supportsNativeStructuredOutputs', () => {
  it('is true from the Claude 4.5 generation on and for unrecognised ids', () => {
    for (const model of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-5-20251101',
      'claude-haiku-4-5-20251001',
      'claude-opus-4-6',
      'claude-sonnet-5',
      'some-proxy-alias',
    ]) {
      expect(supportsNativeStructuredOutputs(model), model).toBe(true);
    }
  });

  it('is false for Claude 3.x and Claude 4.0 / 4.1', () => {
    for (const model of [
      'claude-3-7-sonnet-20250219',
      'claude-3-5-haiku-20241022',
      'claude-3-haiku-20240307',
      'claude-opus-4-20250514',
      'claude-opus-4-1-20250805',
      'claude-sonnet-4-20250514',
      'claude-opus-4-0',
    ]) {
      expect(supportsNativeStructuredOutputs(model), model).toBe(false);
    }
  });
});
