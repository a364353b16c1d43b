import { Counter } from 'prom-client';
import { childrenByTwo, metricsRegistry } from './registry.ts';
import {
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  genAiProviderName,
} from './semantic-attributes.ts';
import { annotateActiveSpan, isTracing } from './tracing.ts';

const tokens = new Counter({
  name: 'gateway_tokens_total',
  help: 'Tokens charged, by model, the provider that served them, and direction (input, output).',
  labelNames: ['model', 'provider', 'direction'],
  registers: [metricsRegistry],
});

const cost = new Counter({
  name: 'gateway_cost_micro_irt_total',
  help: 'Cost charged in micro-Toman (µIRT; divide by 1e6 for Toman), by model and the provider that served it. The ledger is the record of money; this is its operational view.',
  labelNames: ['model', 'provider'],
  registers: [metricsRegistry],
});

const seriesFor = childrenByTwo((model, provider) => ({
  input: tokens.labels(model, provider, 'input'),
  output: tokens.labels(model, provider, 'output'),
  cost: cost.labels(model, provider),
}));

/** What a charge counted: tokens in and out (none for media billed by unit). */
export interface ChargedTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The tokens of a charge billed by another unit (images, characters, seconds). */
export const NO_TOKENS: ChargedTokens = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/**
 * Records a charge once it is queued or written: its tokens and cost by model and serving provider,
 * and, when this process traces, the GenAI summary (model, provider, usage, cost) on the span of
 * the request or job that was charged.
 */
export function observeCharge(
  model: string,
  provider: string,
  usage: ChargedTokens,
  costMicros: bigint,
): void {
  const series = seriesFor(model, provider);
  if (usage.inputTokens > 0) series.input.inc(usage.inputTokens);
  if (usage.outputTokens > 0) series.output.inc(usage.outputTokens);
  series.cost.inc(Number(costMicros));
  if (!isTracing()) return;
  annotateActiveSpan({
    [ATTR_GEN_AI_RESPONSE_MODEL]: model,
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(provider),
    'gateway.cost_micro_irt': Number(costMicros),
  });
  // Media billed by image, character or second reports no token usage.
  if (usage.inputTokens + usage.outputTokens > 0) {
    annotateActiveSpan({
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    });
  }
}
