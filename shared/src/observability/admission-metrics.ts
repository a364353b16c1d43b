import { Counter } from 'prom-client';
import { childrenByOne, metricsRegistry } from './registry.ts';

const refusals = new Counter({
  name: 'gateway_admission_refusals_total',
  help: 'Requests refused by admission, by reason (the error code answered: invalid_api_key, ip_not_allowed, rate_limit_exceeded, insufficient_quota, spend_limit_reached, model_not_allowed, hold_too_large).',
  labelNames: ['reason'],
  registers: [metricsRegistry],
});

const refusalsFor = childrenByOne((reason) => refusals.labels(reason));

/**
 * Counts an admission refusal and hands back its error, to be thrown where it was made:
 * `throw refused(errors.invalidApiKey())`. The reason is the error's code unless one is given.
 */
export function refused<E extends { readonly code: string | number }>(error: E, reason?: string): E {
  refusalsFor(reason ?? String(error.code)).inc();
  return error;
}
