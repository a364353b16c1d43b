import type { FastifyRequest } from 'fastify';
import type { Calibration } from '../../../shared/src/billing/hold-calibration.ts';
import { chatHold, type HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { CheckedOutputBound } from '../../../shared/src/native/field-bounds.ts';
import type { AdmittedRequest } from '../admission/admission-context.ts';

/**
 * Reads what a native request asks for once per request, though admission (model, hold) and the
 * handler each need it: the first call computes it from the request, later calls get the same
 * answer, or the same error thrown again. Admission's callbacks see `undefined` for a request the
 * plan refuses: it is counted, then the handler answers the refusal (a 400 or 404 of its own).
 */
export function planCache<P>(
  plan: (request: Pick<FastifyRequest, 'body' | 'params' | 'query' | 'headers' | 'pricedCatalogue'>) => P,
) {
  const plans = new WeakMap<object, { plan: P } | { error: unknown }>();
  const planned = (
    request: Pick<FastifyRequest, 'body' | 'params' | 'query' | 'headers' | 'pricedCatalogue'>,
  ) => {
    // Every native endpoint takes a body (the raw-body parser hands it over as a Buffer).
    if (!(request.body instanceof Uint8Array))
      return { error: errors.invalidRequest('The request has no body.') };
    try {
      return { plan: plan(request) };
    } catch (error) {
      return { error };
    }
  };
  const of = (
    request: Pick<FastifyRequest, 'body' | 'params' | 'query' | 'headers' | 'pricedCatalogue'>,
  ): { plan: P } | { error: unknown } => {
    const cacheKey = request.body;
    // A request without a body has no identity to cache under: planned (refused) on each call.
    if (typeof cacheKey !== 'object' || cacheKey === null) return planned(request);
    const cached = plans.get(cacheKey);
    if (cached !== undefined) return cached;
    const entry = planned(request);
    plans.set(cacheKey, entry);
    return entry;
  };
  return {
    /** The plan, or the refusal thrown (the handler's view). */
    require(request: Pick<FastifyRequest, 'body' | 'params' | 'query' | 'headers' | 'pricedCatalogue'>): P {
      const entry = of(request);
      if ('error' in entry) throw entry.error;
      return entry.plan;
    },
    /** The plan, or undefined when the request is refused (admission's view). */
    peek(request: AdmittedRequest): P | undefined {
      const entry = of({
        body: request.body,
        query: request.query,
        params: request.params,
        headers: request.headers,
      });
      return 'plan' in entry ? entry.plan : undefined;
    },
  };
}

/**
 * The hold of a native token call (docs/native.md, "Holds"): the body's bytes as its input (markup
 * and base64 media count too, capped by the context window; scaled by how the model's native
 * answers compared to that count) at the input price, plus its stated output bound, else what the
 * model's answers used lately, capped by the model's output limit, once per answer it asks for
 * (`n`, Gemini's `candidateCount`). Bounded when the request states its output bound. Only values
 * its bounds checked (`field-bounds.ts`) come here.
 */
export function nativeTokenHold(
  model: CatalogueModel,
  bodyBytes: number,
  checked: CheckedOutputBound,
  calibration: Calibration,
): HoldEstimate {
  return chatHold(model, { basis: 'native', inputBytes: bodyBytes, imageParts: 0, ...checked }, calibration);
}
