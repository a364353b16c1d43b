import type { Billing } from '../../../shared/src/billing/billing.ts';
import { tokenCostMicros } from '../../../shared/src/billing/token-pricing.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChannelRouting } from '../../../shared/src/channels/channel-router.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import { observeCharge } from '../../../shared/src/observability/charge-observation.ts';
import type { NormalizedUsage } from '../../../shared/src/providers/chat-types.ts';
import { noteCharge } from '../../../shared/src/request-log/request-draft.ts';
import type { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';
import { type AdmissionContext, queueChargeReplacingHold } from '../admission/admission-context.ts';

/** What the chat and embedding use cases need from the process. */
export interface ChatDeps {
  readonly config: Pick<Config, 'streamDrainMs'>;
  /** The provider channels the routes call through. */
  readonly channels: ChannelRouting;
  readonly client: UpstreamClient;
  readonly billing: Pick<Billing, 'settleDeferred' | 'calibration'>;
  readonly now: () => Date;
}

/** What every chat and embedding use case is called with, besides its request. */
export interface ModelCallInput {
  readonly model: CatalogueModel;
  readonly admission: AdmissionContext;
  /** Aborted when the client goes away or the api stops (`answerSignal`): the call is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Charges a finished request its actual cost (usage × price) once, replacing its hold. The charge is
 * queued for the next settlement batch: the answer does not wait for the store, and the hold stays
 * until the charge counts (once queued it is handed to the settlement: the request no longer
 * releases it; a charge refused at once leaves it the request's, released when the response ends).
 * Callers wait only when the backlog of unwritten charges is over its high-water mark. `provider`
 * served the request.
 */
export async function settleUsage(
  deps: { readonly billing: Pick<Billing, 'settleDeferred'> },
  admission: AdmissionContext,
  model: CatalogueModel,
  usage: NormalizedUsage,
  provider: string,
): Promise<bigint> {
  const costMicros = tokenCostMicros(model.pricing, usage);
  await settleCost(deps, admission, model.id, costMicros, usage);
  if (admission.draft !== undefined) admission.draft.reasoningTokens = usage.reasoningTokens;
  observeCharge(model.id, provider, usage, costMicros);
  return costMicros;
}

/**
 * Charges a request of a key `costMicros` once, keyed by its hold id, replacing the hold (queued
 * for the next settlement batch); the usage row counts `tokens`. Shared by `/v1` and native calls.
 */
export async function settleCost(
  deps: { readonly billing: Pick<Billing, 'settleDeferred'> },
  admission: AdmissionContext,
  modelId: string,
  costMicros: bigint,
  tokens: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedInputTokens?: number;
  },
): Promise<void> {
  // The hold goes to the settlement once its charge is queued, before the wait for backpressure.
  await queueChargeReplacingHold(admission, () =>
    deps.billing.settleDeferred({
      requestId: admission.holdId,
      accountId: admission.key.accountId,
      keyId: admission.key.id,
      model: modelId,
      costMicros,
      usage: {
        inputTokens: tokens.inputTokens,
        outputTokens: tokens.outputTokens,
        cachedInputTokens: tokens.cachedInputTokens ?? 0,
      },
      basis: admission.holdBasis,
    }),
  );
  // What the answer's `service.cost` says, for the request log.
  noteCharge(admission.draft, {
    model: modelId,
    costMicros,
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
    cachedTokens: tokens.cachedInputTokens ?? 0,
  });
}
