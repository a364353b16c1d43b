/**
 * Request parameters a model cannot take, from its catalogue entry (`unsupported_params`,
 * `fixed_params`, `reasoning_none_allows`). The gateway refuses such a request with 400 naming them
 * (docs/native.md, "Parameters a model does not take"): dropping them silently would change the
 * answer the client asked for.
 */
import type { CatalogueModel } from '../catalogue/catalogue.ts';
import { errors } from '../errors/app-error.ts';
import { nativeFactsOf } from './native-model.ts';
import { isObject } from './native-usage.ts';

/**
 * The names of the top-level parameters of `body` (a parsed JSON request: chat completions or a
 * native Responses body) that `model` cannot take, in the order the body sends them. A parameter
 * sent as `null` counts as not sent (the convention's "use the default"). A fixed parameter may be
 * sent at its one value. Where the model lists `reasoning_none_allows`, those parameters are free
 * while the request's reasoning effort is `none` or unset (such a model's default is `none`); the
 * effort is read from `reasoning_effort` (chat completions) or `reasoning.effort` (Responses).
 */
export function checkParams(model: CatalogueModel, body: Readonly<Record<string, unknown>>): string[] {
  const facts = nativeFactsOf(model);
  const lifted = reasoningEffortOf(body) === 'none' ? new Set(facts.reasoningNoneAllows) : new Set();
  const refused: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === null || value === undefined || lifted.has(name)) continue;
    if (facts.unsupportedParams.includes(name)) refused.push(name);
    else if (Object.hasOwn(facts.fixedParams, name) && facts.fixedParams[name] !== value) refused.push(name);
  }
  return refused;
}

/** The reasoning effort a request asks for; `none` when it names none. */
function reasoningEffortOf(body: Readonly<Record<string, unknown>>): unknown {
  const chat = body.reasoning_effort;
  if (chat !== undefined && chat !== null) return chat;
  const responses = isObject(body.reasoning) ? body.reasoning.effort : undefined;
  return responses ?? 'none';
}

/**
 * Refuses with 400 `invalid_request_error` a request sending parameters `model` cannot take,
 * naming each with the one value it takes where it has one ("`openai/gpt-5` does not take
 * `temperature` (only 1), `logit_bias`"). Applied on `/v1` chat completions and on the native
 * Responses API alike, before anything is sent upstream.
 */
export function refuseUntakenParams(model: CatalogueModel, body: Readonly<Record<string, unknown>>): void {
  const refused = checkParams(model, body);
  if (refused.length === 0) return;
  const { fixedParams } = nativeFactsOf(model);
  const named = refused.map((name) =>
    Object.hasOwn(fixedParams, name)
      ? `\`${name}\` (only ${JSON.stringify(fixedParams[name])})`
      : `\`${name}\``,
  );
  throw errors.invalidRequest(`The model \`${model.id}\` does not take ${named.join(', ')}.`);
}
