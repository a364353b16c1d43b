import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey } from '../../../shared/src/accounts/api-key-format.ts';
import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';
import type { AdmitInput, AdmitResult } from '../../../shared/src/billing/admission.ts';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { type HoldEstimate, MAX_HOLD_MICROS } from '../../../shared/src/billing/hold-estimate.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import { refused } from '../../../shared/src/observability/admission-metrics.ts';
import { tracedStep } from '../../../shared/src/observability/tracing.ts';
import type { RequestLogWriter } from '../../../shared/src/request-log/request-log-writer.ts';
import { isStoreUnavailable } from '../plugins/store-outage.ts';
import { registerRequestCapture, startRequestRecord } from '../request-log/capture-requests.ts';
import { type AdmissionContext, type RouteAdmission, takeHoldForRelease } from './admission-context.ts';
import { presentedApiKey } from './key-carriers.ts';
import { isIpAllowed, isKeyUsable, isModelAllowed } from './key-validity.ts';

export interface AdmissionDeps {
  readonly keyCache: { lookup(hash: string): Promise<ResolvedKey | null> };
  readonly billing: Pick<Billing, 'admit' | 'rateWindow' | 'release'>;
  readonly catalogue: Pick<Catalogue, 'resolve'>;
  /**
   * The catalogue an account's request is priced from, taken once at authentication: the current
   * snapshot at the account's prices (price plan). Without it, `catalogue` as it is.
   */
  readonly catalogueFor?: (accountId: string) => Catalogue;
  readonly now?: () => Date;
  /** Where each request whose key passed check 2 is recorded (docs/request-log.md); none: not recorded. */
  readonly requestLog?: RequestLogWriter | undefined;
}

/**
 * Admission for every route of the plugin it is registered in, in two steps around body
 * validation. Before it, checks 1–3 (local: the key cache), so that a caller without a valid key
 * learns nothing about its request. After it, checks 4–7 and the hold in one Redis round trip,
 * from the validated request. A request that fails validation still counts against its key's
 * rate limit and carries the rate headers: a 429 when its window is exhausted, else its 400
 * (or the route's own 422). A hold the handler did not settle (error, client gone) is released
 * when the response ends: a failed request is never charged.
 */
export function registerAdmission(app: FastifyInstance, deps: AdmissionDeps): void {
  // Schema errors come to admission (attached to the request) instead of ending the request
  // before it was counted. Routes that attach them already answer them themselves (media 422).
  app.addHook('onRoute', (route) => {
    if (route.attachValidation === true) return;
    route.attachValidation = true;
    route.config = { ...route.config, validationAnsweredByAdmission: true };
  });
  // Before the body is read: a request without a usable key is refused without reading (or
  // buffering) its body, up to the 51 MB of a speech-to-text upload.
  app.addHook('preParsing', tracedStep('gateway.authenticate', createAuthenticationHook(deps)));
  app.addHook('preHandler', tracedStep('gateway.admission', createAdmissionHook(deps)));
  if (deps.requestLog !== undefined) registerRequestCapture(app);
  // Callback hooks that go async only when a hold is left to release (not on the settled path).
  app.addHook('onResponse', (request, _reply, done) => {
    const release = releaseRequestHold(deps, request);
    if (release === null) done();
    else void release.then(() => done());
  });
  // A body refused as it is read, once its key passed (malformed or too deeply nested JSON, an
  // unsupported content type, a body too large or too slow), is counted like an invalid request:
  // it carries the rate headers, and a spent window answers 429 first. The error then goes on to
  // the app's handler, which answers it. Admission's own failures (a store outage) and what
  // admission already counted (rate headers set) pass through untouched.
  app.setErrorHandler(async (error, request, reply) => {
    const key = request.authenticatedKey;
    if (key !== undefined && !reply.hasHeader('x-ratelimit-limit') && !isStoreUnavailable(error)) {
      await countRefusedRequest(deps, reply, key, request.id);
    }
    throw error;
  });
  // Fastify runs onResponse only for a response that finished: when the client went away first,
  // release once the handler has answered (into the closed connection), or the hold would stay
  // counted against the wallet until it expires.
  app.addHook('onSend', (request, reply, payload, done) => {
    // A stream whose client goes away mid-way never finishes either: release once the stream
    // closed (its relay has settled by then whatever usage it was told of).
    if (payload instanceof Readable) {
      payload.once('close', () => {
        if (!reply.raw.writableFinished) void releaseRequestHold(deps, request);
      });
    }
    const release = reply.raw.destroyed ? releaseRequestHold(deps, request) : null;
    if (release === null) done(null, payload);
    else void release.then(() => done(null, payload));
  });
}

/**
 * Releases the hold while it is still the request's and holds something (`takeHoldForRelease`);
 * null when there is nothing to do.
 */
function releaseRequestHold(deps: AdmissionDeps, request: FastifyRequest): Promise<void> | null {
  const admission = request.admission;
  if (admission === undefined || !takeHoldForRelease(admission)) return null;
  return deps.billing
    .release({ requestId: admission.holdId, accountId: admission.key.accountId, keyId: admission.key.id })
    .catch((err: unknown) => request.log.error({ err }, 'releasing the hold failed; it expires on its own'));
}

/**
 * Checks 1 to 3, before the body is read: a key is presented, it is usable, and the request
 * comes from an allowed address. Local (the key comes from the in-process cache); a refused
 * address reads the rate window for the headers without counting the request.
 */
export function createAuthenticationHook(deps: AdmissionDeps) {
  const now = deps.now ?? (() => new Date());
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const presented = presentedApiKey(request);
    if (presented === undefined || !presented.startsWith('hk-')) throw refused(errors.invalidApiKey());
    const key = await deps.keyCache.lookup(hashApiKey(presented));
    if (!isKeyUsable(key, now())) throw refused(errors.invalidApiKey());
    // From here (check 2 passed) the request has a record in the request log, whatever follows.
    if (deps.requestLog !== undefined) startRequestRecord(deps.requestLog, request, reply, key);
    // Bound to the request's own logger, made only if the request logs a line (request-logger.ts).
    (request.log as unknown as { setBindings(bindings: Record<string, string>): void }).setBindings({
      keyId: key.id,
      accountId: key.accountId,
    });
    if (!isIpAllowed(key, request.ip)) {
      const window = await deps.billing.rateWindow(key.accountId, key.id, key.rateLimit);
      setRateHeaders(reply, window);
      throw refused(errors.ipNotAllowed());
    }
    request.authenticatedKey = key;
    request.pricedCatalogue = deps.catalogueFor?.(key.accountId);
  };
}

/**
 * Checks 4 to 7 and the cost hold, after validation, in one Redis round trip; the first failure
 * answers with its own error and nothing is held or charged. The model and the estimate come from
 * the validated request only. A request that failed validation is counted (check 4) and answered
 * with its validation error; nothing is estimated or held for it.
 */
export function createAdmissionHook(deps: AdmissionDeps) {
  return async function admitRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = request.authenticatedKey;
    if (key === undefined) throw new Error(`route ${request.routeOptions.url} was not authenticated`);
    const config = request.routeOptions.config;
    const settings: RouteAdmission = config.admission ?? {};
    const holdId = settings.holdId?.(request.id) ?? request.id;
    const invalid = request.validationError;
    if (invalid !== undefined) {
      await countRefusedRequest(deps, reply, key, holdId);
      if (config.validationAnsweredByAdmission === true) throw invalid;
      return; // The route answers its own validation errors (the media routes' 422).
    }

    const admitted = {
      body: request.body,
      query: request.query,
      params: request.params,
      headers: request.headers,
      key,
      pricedCatalogue: request.pricedCatalogue,
    };
    const requested = settings.model?.(admitted);
    const model =
      requested === undefined
        ? undefined
        : (request.pricedCatalogue ?? deps.catalogue).resolve(requested)?.id;
    const canonical = model ?? requested;
    const draft = request.requestCapture?.draft;
    if (draft !== undefined && model !== undefined) draft.model = model;
    let hold: HoldEstimate;
    try {
      hold = asHoldEstimate(settings.estimateMicros?.(admitted) ?? 0n);
    } catch (err) {
      // The estimate found the request invalid (an output bound above the model's limit): refused
      // as invalid, counted like any invalid request, before any money check answers for it.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      await countRefusedRequest(deps, reply, key, holdId);
      throw err;
    }
    const estimateMicros = hold.micros;
    if (estimateMicros > MAX_HOLD_MICROS) {
      await countRefusedRequest(deps, reply, key, holdId);
      throw holdTooLarge();
    }
    const result = await admitKey(deps, reply, key, {
      requestId: holdId,
      modelAllowed: isModelAllowed(key, canonical),
      estimateMicros,
      bounded: hold.bounded,
      ...(settings.holdTtlMs === undefined ? {} : { holdTtlMs: settings.holdTtlMs }),
    });
    throwUnlessAdmitted(result, canonical);
    request.admission = {
      key,
      holdId,
      estimateMicros,
      holdBasis: hold.basis,
      rateLimit: result,
      holdOwner: 'request',
      model,
      draft,
    };
  };
}

/** A route's hold as admission takes it: a bare amount is an estimate (not the request's own bound). */
function asHoldEstimate(hold: bigint | HoldEstimate): HoldEstimate {
  return typeof hold === 'bigint' ? { micros: hold, bounded: false } : hold;
}

/**
 * Counts a request that will be refused for what it asks (invalid, or beyond what can be held)
 * against its key's rate window, with the rate headers: one admission with nothing to hold. An
 * exhausted window answers 429 first; the outcome of checks 5–7 is not this request's answer.
 */
async function countRefusedRequest(
  deps: AdmissionDeps,
  reply: FastifyReply,
  key: ResolvedKey,
  holdId: string,
): Promise<void> {
  const result = await admitKey(deps, reply, key, {
    requestId: holdId,
    modelAllowed: true,
    estimateMicros: 0n,
  });
  if (result.outcome === 'rate_limited') throwUnlessAdmitted(result, undefined);
}

/**
 * The second phase of a request whose cost is known only after its body was read (a transcription
 * is priced by the duration of its upload): checks 5–7 again and the hold, without counting the
 * request against the rate limit a second time. The measured cost is the request's bound: admitted
 * only when the wallet and the cap can pay it.
 */
export async function admitHold(
  deps: Pick<AdmissionDeps, 'billing'>,
  reply: FastifyReply,
  admission: AdmissionContext,
  canonicalModel: string,
  estimateMicros: bigint,
): Promise<AdmissionContext> {
  const { key } = admission;
  if (estimateMicros > MAX_HOLD_MICROS) throw holdTooLarge();
  const result = await admitKey(deps, reply, key, {
    requestId: admission.holdId,
    modelAllowed: isModelAllowed(key, canonicalModel),
    estimateMicros,
    bounded: true,
    countRequest: false,
  });
  throwUnlessAdmitted(result, canonicalModel);
  return { ...admission, estimateMicros, holdOwner: 'request' };
}

/**
 * One admission of a request of `key` (checks 4–7 and the hold in one Redis round trip), its rate
 * headers set on the reply whatever the outcome.
 */
async function admitKey(
  deps: Pick<AdmissionDeps, 'billing'>,
  reply: FastifyReply,
  key: ResolvedKey,
  request: Omit<AdmitInput, 'accountId' | 'keyId' | 'rateLimit' | 'monthlyCapMicros'>,
): Promise<AdmitResult> {
  const result = await deps.billing.admit({
    accountId: key.accountId,
    keyId: key.id,
    rateLimit: key.rateLimit,
    monthlyCapMicros: key.monthlyCapMicros,
    ...request,
  });
  setRateHeaders(reply, result);
  return result;
}

/**
 * A request whose cost bound passes `MAX_HOLD_MICROS` (only a custom catalogue with extreme prices
 * can produce one): refused, never held at less (docs/money-core.md, "Hold sizing").
 */
function holdTooLarge() {
  return refused(
    errors.invalidRequest(
      'The most this request could cost is too large to reserve: lower `max_tokens`, `n` or the input.',
    ),
    'hold_too_large',
  );
}

function throwUnlessAdmitted(result: AdmitResult, canonical: string | undefined): void {
  switch (result.outcome) {
    case 'admitted':
      return;
    case 'rate_limited':
      throw refused(errors.rateLimitExceeded(Math.max(1, Math.ceil(result.resetMs / 1000))));
    case 'insufficient_quota':
      throw refused(errors.insufficientQuota());
    case 'spend_limit_reached':
      throw refused(errors.spendLimitReached());
    case 'model_not_allowed':
      throw refused(errors.modelNotAllowed(canonical ?? ''));
  }
}

function setRateHeaders(reply: FastifyReply, window: { limit: number; remaining: number }): void {
  reply.header('x-ratelimit-limit', String(window.limit));
  reply.header('x-ratelimit-remaining', String(Math.max(0, window.remaining)));
}
