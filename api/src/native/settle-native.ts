import { microsToIrt } from '../../../shared/src/billing/money.ts';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import { AppError } from '../../../shared/src/errors/app-error.ts';
import { nativeCost, UnpricedUsageError } from '../../../shared/src/native/native-cost.ts';
import type { NativeUsage } from '../../../shared/src/native/native-usage.ts';
import { observeCharge } from '../../../shared/src/observability/charge-observation.ts';
import type { AdmissionContext } from '../admission/admission-context.ts';
import { settleCost } from '../chat/chat-context.ts';
import type { NativeDeps } from './native-deps.ts';

/** The response header (or trailer, after a stream) that carries what a native call cost, in IRT. */
export const SERVICE_COST_HEADER = 'x-service-cost';

/**
 * The cost of a native call's usage; a part without a catalogue price refuses the answer (400
 * naming it: never billed at zero, and nothing is charged).
 */
export function costOf(model: CatalogueModel, usage: NativeUsage): bigint {
  try {
    return nativeCost(model, usage);
  } catch (err) {
    if (!(err instanceof UnpricedUsageError)) throw err;
    throw new AppError(
      400,
      'invalid_request_error',
      'invalid_request_error',
      `The answer used what the gateway has no price for on ${err.modelId} (${err.parts.join(', ')}); nothing was charged.`,
    );
  }
}

/**
 * Charges a native call its cost once, replacing its hold, like `/v1` (queued for the next
 * settlement batch, keyed by the hold id); the ledger and usage rows are the same as `/v1`'s:
 * tokens in (cache reads and writes included) and out, or none for characters and seconds.
 * `provider` served the call.
 */
export async function settleNative(
  deps: Pick<NativeDeps, 'billing'>,
  admission: AdmissionContext,
  model: CatalogueModel,
  costMicros: bigint,
  usage: NativeUsage,
  provider: string,
): Promise<void> {
  const tokens =
    usage.kind === 'tokens'
      ? {
          inputTokens:
            usage.inputTokens + usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens,
          outputTokens: usage.outputTokens,
          cachedInputTokens: usage.cacheReadTokens,
        }
      : { inputTokens: 0, outputTokens: 0 };
  await settleCost(deps, admission, model.id, costMicros, tokens);
  observeCharge(model.id, provider, tokens, costMicros);
}

/** A cost as the `X-Service-Cost` header shows it: IRT, in the spec's number format. */
export function costHeaderValue(costMicros: bigint): string {
  return String(microsToIrt(costMicros));
}
