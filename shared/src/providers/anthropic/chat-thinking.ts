/**
 * `max_tokens` and `reasoning_effort` → Anthropic `max_tokens` and extended thinking
 * `thinking: {type: 'enabled', budget_tokens}`. Documented constraints followed
 * (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking): `max_tokens` is
 * required; `budget_tokens` is at least 1024 and below `max_tokens`; thinking tokens are billed
 * as output and counted in `max_tokens`.
 */
import type { ChatMessage, ChatRequest, ReasoningEffort } from '../chat-types.ts';
import { UnsupportedFeatureError } from './unsupported-feature-error.ts';
import type { ThinkingParam } from './wire-types.ts';

/** Anthropic's smallest accepted thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * Thinking budget per effort level. `none` turns thinking off. The top levels stay under 32000
 * tokens, the output limit of Claude Opus 4 and 4.1, so every thinking model accepts them.
 */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 28000,
};

/** When the model's output limit is unknown, a thinking request asks for at most this many tokens. */
export const THINKING_MAX_TOKENS_CEILING = 32000;

export interface TokenLimits {
  /** `max_tokens` when the client sets none: the model's output limit when known, else a constant. */
  defaultMaxTokens: number;
  /** The model's output limit, when the gateway passes it. */
  modelMaxOutputTokens?: number;
}

export interface TokenPlan {
  maxTokens: number;
  thinking?: ThinkingParam;
}

/**
 * The request's `max_tokens` (client's `max_completion_tokens`, else `max_tokens`, else the
 * default) and thinking budget. A client's `max_tokens` is never raised: the budget is lowered to
 * fit under it, and below the 1024 minimum the request is refused.
 */
export function tokenPlan(request: ChatRequest, limits: TokenLimits): TokenPlan {
  const requested = request.max_completion_tokens ?? request.max_tokens;
  const budget = thinkingBudget(request);
  if (budget === undefined) return { maxTokens: requested ?? limits.defaultMaxTokens };
  const ceiling = limits.modelMaxOutputTokens ?? THINKING_MAX_TOKENS_CEILING;
  const maxTokens =
    requested ?? Math.max(limits.defaultMaxTokens, Math.min(budget + limits.defaultMaxTokens, ceiling));
  const fitted = Math.min(budget, maxTokens - 1);
  if (fitted < MIN_THINKING_BUDGET) {
    throw new UnsupportedFeatureError(
      'max_tokens',
      `reasoning_effort needs max_tokens above ${MIN_THINKING_BUDGET} on Anthropic models (the smallest thinking budget).`,
    );
  }
  return { maxTokens, thinking: { type: 'enabled', budget_tokens: fitted } };
}

function thinkingBudget(request: ChatRequest): number | undefined {
  const effort = request.reasoning_effort;
  if (effort === undefined || effort === 'none') return undefined;
  // Anthropic requires the previous assistant turn's signed thinking block when a tool loop goes
  // on with thinking enabled; the chat convention cannot carry it back, so that turn thinks not.
  if (continuesToolLoop(request.messages)) return undefined;
  return THINKING_BUDGETS[effort];
}

/** True when the last assistant message made tool calls, i.e. this request carries their results. */
export function continuesToolLoop(messages: readonly ChatMessage[]): boolean {
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  return (lastAssistant?.tool_calls?.length ?? 0) > 0;
}
