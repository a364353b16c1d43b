/**
 * `reasoning_effort` to Gemini's `thinkingConfig`, per https://ai.google.dev/gemini-api/docs/thinking:
 * Gemini 3 and later take a `thinkingLevel` (minimal, low, medium, high; thinking cannot be turned
 * off, `minimal` is the documented closest to "no thinking"); Gemini 2.5 takes a `thinkingBudget`
 * in tokens (0 turns thinking off where the model allows it). Budgets follow Google's own
 * OpenAI-compatibility mapping (low 1,024, medium 8,192, high 24,576); `minimal` shares low's
 * budget and `xhigh`/`max` stay at 24,576, the largest budget every 2.5 model accepts.
 * `includeThoughts` asks for thought summaries, returned as `reasoning_content`.
 */
import type { ReasoningEffort } from '../chat-types.ts';
import { bareModelId } from './api.ts';
import type { GeminiThinkingConfig, GeminiThinkingLevel } from './wire-request.ts';

const BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
};

const LEVELS: Readonly<Record<ReasoningEffort, GeminiThinkingLevel>> = {
  none: 'minimal',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

/**
 * Whether the model is Gemini 3 or later (level-based thinking, mandatory thought signatures).
 * Unknown names (aliases such as `gemini-flash-latest`) count as budget-based: Gemini 3 still
 * accepts `thinkingBudget`, while Gemini 2.5 rejects `thinkingLevel`.
 */
export function isGemini3OrLater(nativeModel: string): boolean {
  const major = /^gemini-(\d+)/.exec(bareModelId(nativeModel))?.[1];
  return major !== undefined && Number(major) >= 3;
}

/** The thinking configuration for an effort, or undefined to leave the model's default. */
export function thinkingConfigOf(
  effort: ReasoningEffort | undefined,
  nativeModel: string,
): GeminiThinkingConfig | undefined {
  if (effort === undefined) return undefined;
  const includeThoughts = effort !== 'none';
  const config: GeminiThinkingConfig = isGemini3OrLater(nativeModel)
    ? { thinkingLevel: LEVELS[effort] }
    : { thinkingBudget: BUDGETS[effort] };
  if (includeThoughts) config.includeThoughts = true;
  return config;
}
