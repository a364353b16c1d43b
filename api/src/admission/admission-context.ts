import type { FastifyRequest } from 'fastify';
import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';
import type { HoldBasis } from '../../../shared/src/billing/hold-calibration.ts';
import type { HoldEstimate } from '../../../shared/src/billing/hold-estimate.ts';
import { SettlementClosedError } from '../../../shared/src/billing/settlement-batcher.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import { errors } from '../../../shared/src/errors/app-error.ts';
import type { RequestDraft } from '../../../shared/src/request-log/request-draft.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The catalogue this request is priced from, fixed once its key is known: the snapshot current
     * then, at its account's prices. Its hold and its charge both come from it, whatever changes
     * while it runs.
     */
    pricedCatalogue?: Catalogue | undefined;
  }
}

/** The catalogue a request is priced from (`pricedCatalogue`), else the process's own. */
export function catalogueOf<C extends Catalogue>(
  request: { readonly pricedCatalogue?: Catalogue | undefined },
  fallback: C,
): Catalogue | C {
  return request.pricedCatalogue ?? fallback;
}

/** What admission established about a request, for the handler that serves it. */
export interface AdmissionContext {
  readonly key: ResolvedKey;
  /** Id of the cost hold (the request id); settle or release it when the request ends. */
  readonly holdId: string;
  readonly estimateMicros: bigint;
  /** What a token hold was computed from: its answer's usage refines later estimates of the model. */
  readonly holdBasis?: HoldBasis | undefined;
  readonly rateLimit: { readonly limit: number; readonly remaining: number };
  /** Who the hold belongs to now (see `HoldOwner`); changed only by the two functions below. */
  holdOwner: HoldOwner;
  /** The catalogue id of the model the request names, when it names one the catalogue knows (metrics). */
  readonly model?: string | undefined;
  /** The request's log record in the making (docs/request-log.md): the charge is noted on it. */
  readonly draft?: RequestDraft | undefined;
}

/**
 * Who a request's hold belongs to. Admission makes it the request's: released when the response
 * ends, so a failed request is never charged. A handler hands it on: to the settlement (a queued
 * charge replaces it) or to a job (a video's worker settles or releases it). The release at the
 * response's end takes it only while it is still the request's, and only once.
 */
export type HoldOwner = 'request' | 'settlement' | 'job' | 'released';

/**
 * Hands the hold on; from here no release of the request touches it. Handing it to the settlement
 * after a release (a client gone mid-stream, whose reported tokens are still charged) is allowed:
 * the charge is keyed by the hold id and needs no hold.
 */
export function handHoldTo(admission: AdmissionContext, owner: 'settlement' | 'job'): void {
  admission.holdOwner = owner;
}

/**
 * Queues the charge that replaces the hold (`queue` throws at once when the charge is refused:
 * billing closing, an invalid charge), and only then hands the hold to the settlement. The other
 * order would leave a refused charge's hold to nobody: neither charged nor released, renewed by
 * its lease for up to an hour. Resolves when `queue`'s promise does (the settlement's backpressure).
 */
export function queueChargeReplacingHold(
  admission: AdmissionContext,
  queue: () => Promise<void>,
): Promise<void> {
  let queued: Promise<void>;
  try {
    queued = queue();
  } catch (err) {
    // Refused while the process stops: the client may retry on another replica, or this one restarted.
    if (err instanceof SettlementClosedError) throw errors.shuttingDown();
    throw err;
  }
  handHoldTo(admission, 'settlement');
  return queued;
}

/** Takes the hold for its release when it is still the request's and holds something: true once. */
export function takeHoldForRelease(admission: AdmissionContext): boolean {
  if (admission.holdOwner !== 'request' || admission.estimateMicros === 0n) return false;
  admission.holdOwner = 'released';
  return true;
}

/**
 * What a route's admission settings see: the request after its schema validated it (body and query
 * have their schema's shape and defaults) and the key that authenticated it.
 */
export interface AdmittedRequest {
  readonly body: unknown;
  readonly query: unknown;
  /** The path's parameters (a native API whose model is in the path: Gemini's `{model}`). */
  readonly params: unknown;
  readonly headers: FastifyRequest['headers'];
  readonly key: ResolvedKey;
  /** The catalogue the request is priced from (see `FastifyRequest.pricedCatalogue`). */
  readonly pricedCatalogue?: Catalogue | undefined;
}

/** Per-route admission settings (Fastify route `config.admission`). */
export interface RouteAdmission {
  /** The model a request asks for (check 7), when the route takes one. */
  readonly model?: (request: AdmittedRequest) => string | undefined;
  /**
   * The cost to hold while the request runs (docs/money-core.md, "Hold sizing"), from validated
   * values only: an estimate in µIRT (0 for free endpoints), or a `HoldEstimate` saying whether it
   * is the request's own bound. Never called for a request that failed validation.
   */
  readonly estimateMicros?: (request: AdmittedRequest) => bigint | HoldEstimate;
  /** The hold's id when it is not the request id (a media job's id: the job settles it). */
  readonly holdId?: (requestId: string) => string;
  /** How long the hold lives if nobody settles or releases it (a video render outlives requests). */
  readonly holdTtlMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The key that passed checks 1–3 (set before validation, for the admission after it). */
    authenticatedKey?: ResolvedKey;
    admission?: AdmissionContext;
  }
  interface FastifyContextConfig {
    admission?: RouteAdmission;
    /**
     * Set by admission on every route whose schema errors would otherwise end the request before
     * it is counted: admission answers them (400) once the request counted against the rate limit.
     * Routes that declare `attachValidation` themselves answer their own (the 422 of media routes).
     */
    validationAnsweredByAdmission?: boolean;
  }
}

/** The `model` field of a JSON body, when it is a string. */
export function bodyModelName({ body }: { body: unknown }): string | undefined {
  const model = (body as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : undefined;
}
