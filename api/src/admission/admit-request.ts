import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey } from '../../../shared/src/accounts/api-key-format.ts';
import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';
import type { AdmitResult } from '../../../shared/src/billing/admission.ts';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { AdmissionContext, RouteAdmission } from './admission-context.ts';
import { presentedApiKey } from './key-carriers.ts';
import { isIpAllowed, isKeyUsable, isModelAllowed } from './key-validity.ts';

export interface AdmissionDeps {
  readonly keyCache: { lookup(hash: string): Promise<ResolvedKey | null> };
  readonly billing: Pick<Billing, 'admit' | 'rateWindow' | 'release'>;
  readonly catalogue: Pick<Catalogue, 'resolve'>;
  readonly now?: () => Date;
}

/**
 * Admission for every route of the plugin it is registered in. It runs before body validation, so
 * that a caller without a valid key learns nothing about its request, and every request counts
 * against its key's rate limit. A hold the handler did not settle (error, validation failure,
 * client gone) is released when the response ends: a failed request is never charged.
 */
export function registerAdmission(app: FastifyInstance, deps: AdmissionDeps): void {
  app.addHook('preValidation', createAdmissionHook(deps));
  // Callback hooks that go async only when a hold is left to release (not on the settled path).
  app.addHook('onResponse', (request, _reply, done) => {
    const release = releaseUnsettledHold(deps, request);
    if (release === null) done();
    else void release.then(() => done());
  });
  // Fastify runs onResponse only for a response that finished: when the client went away first,
  // release once the handler has answered (into the closed connection), or the hold would stay
  // counted against the wallet until it expires.
  app.addHook('onSend', (request, reply, payload, done) => {
    const release = reply.raw.destroyed ? releaseUnsettledHold(deps, request) : null;
    if (release === null) done(null, payload);
    else void release.then(() => done(null, payload));
  });
}

/** Releases the request's hold unless it was settled or there is none; null when nothing to do. */
function releaseUnsettledHold(deps: AdmissionDeps, request: FastifyRequest): Promise<void> | null {
  const admission = request.admission;
  if (admission === undefined || admission.settled || admission.estimateMicros === 0n) return null;
  admission.settled = true;
  return deps.billing
    .release({ requestId: admission.holdId, accountId: admission.key.accountId, keyId: admission.key.id })
    .catch((err: unknown) => request.log.error({ err }, 'releasing the hold failed; it expires on its own'));
}

/**
 * The spec's checks 1 to 7, in order, before a request reaches its handler; the first failure
 * answers with its own error and nothing is held or charged. Checks 1–3 are local (the key comes
 * from the in-process cache); checks 4–7 and the cost hold are one Redis round trip.
 */
export function createAdmissionHook(deps: AdmissionDeps) {
  const now = deps.now ?? (() => new Date());
  return async function admitRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const presented = presentedApiKey(request);
    if (presented === undefined || !presented.startsWith('hk-')) throw errors.invalidApiKey();
    const key = await deps.keyCache.lookup(hashApiKey(presented));
    if (!isKeyUsable(key, now())) throw errors.invalidApiKey();
    // Bind to the request's own logger (a new child logger per request costs measurably).
    (request.log as unknown as { setBindings(bindings: Record<string, string>): void }).setBindings({
      keyId: key.id,
      accountId: key.accountId,
    });

    if (!isIpAllowed(key, request.ip)) {
      const window = await deps.billing.rateWindow(key.id, key.rateLimit);
      setRateHeaders(reply, window);
      throw errors.ipNotAllowed();
    }

    const settings: RouteAdmission = request.routeOptions.config.admission ?? {};
    const inputs = { body: request.body, query: request.query };
    const requested = settings.model?.(inputs);
    const canonical =
      requested === undefined ? undefined : (deps.catalogue.resolve(requested)?.id ?? requested);
    const estimateMicros = settings.estimateMicros?.(inputs) ?? 0n;
    const holdId = settings.holdId?.(request.id) ?? request.id;
    const result = await deps.billing.admit({
      requestId: holdId,
      accountId: key.accountId,
      keyId: key.id,
      rateLimit: key.rateLimit,
      monthlyCapMicros: key.monthlyCapMicros,
      modelAllowed: isModelAllowed(key, canonical),
      estimateMicros,
      ...(settings.holdTtlMs === undefined ? {} : { holdTtlMs: settings.holdTtlMs }),
    });
    setRateHeaders(reply, result);
    throwUnlessAdmitted(result, canonical);
    request.admission = { key, holdId, estimateMicros, rateLimit: result, settled: false };
  };
}

/**
 * The second phase of a request whose cost is known only after its body was read (a transcription
 * is priced by the duration of its upload): checks 5–7 again and the hold, without counting the
 * request against the rate limit a second time.
 */
export async function admitHold(
  deps: Pick<AdmissionDeps, 'billing'>,
  reply: FastifyReply,
  admission: AdmissionContext,
  canonicalModel: string,
  estimateMicros: bigint,
): Promise<AdmissionContext> {
  const { key } = admission;
  const result = await deps.billing.admit({
    requestId: admission.holdId,
    accountId: key.accountId,
    keyId: key.id,
    rateLimit: key.rateLimit,
    monthlyCapMicros: key.monthlyCapMicros,
    modelAllowed: isModelAllowed(key, canonicalModel),
    estimateMicros,
    countRequest: false,
  });
  setRateHeaders(reply, result);
  throwUnlessAdmitted(result, canonicalModel);
  return { ...admission, estimateMicros, settled: false };
}

function throwUnlessAdmitted(result: AdmitResult, canonical: string | undefined): void {
  switch (result.outcome) {
    case 'admitted':
      return;
    case 'rate_limited':
      throw errors.rateLimitExceeded(Math.max(1, Math.ceil(result.resetMs / 1000)));
    case 'insufficient_quota':
      throw errors.insufficientQuota();
    case 'spend_limit_reached':
      throw errors.spendLimitReached();
    case 'model_not_allowed':
      throw errors.modelNotAllowed(canonical ?? '');
  }
}

function setRateHeaders(reply: FastifyReply, window: { limit: number; remaining: number }): void {
  reply.header('x-ratelimit-limit', String(window.limit));
  reply.header('x-ratelimit-remaining', String(Math.max(0, window.remaining)));
}
