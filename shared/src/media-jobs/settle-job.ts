import type { Billing } from '../billing/billing.ts';
import type { MediaJob } from './media-job.ts';

/** Charges a media job once: the ledger entry is keyed by the job id, which is also its hold's id. */
export async function settleJobCharge(
  billing: Pick<Billing, 'settle'>,
  job: Pick<MediaJob, 'id' | 'accountId' | 'keyId'>,
  modelId: string,
  costMicros: bigint,
): Promise<void> {
  await billing.settle({
    requestId: job.id,
    accountId: job.accountId,
    keyId: job.keyId,
    model: modelId,
    costMicros,
    usage: { inputTokens: 0, outputTokens: 0 },
  });
}
