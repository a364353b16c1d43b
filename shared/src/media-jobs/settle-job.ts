import type { Billing } from '../billing/billing.ts';
import type { SettleInput } from '../billing/settle-charge.ts';
import type { MediaJob } from './media-job.ts';

/** The charge of a media job: keyed by the job id, which is also its hold's id. */
export function jobCharge(
  job: Pick<MediaJob, 'id' | 'accountId' | 'keyId'>,
  modelId: string,
  costMicros: bigint,
): SettleInput {
  return {
    requestId: job.id,
    accountId: job.accountId,
    keyId: job.keyId,
    model: modelId,
    costMicros,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

/** Charges a media job once, written before it returns (a worker charging a video). */
export async function settleJobCharge(
  billing: Pick<Billing, 'settle'>,
  job: Pick<MediaJob, 'id' | 'accountId' | 'keyId'>,
  modelId: string,
  costMicros: bigint,
): Promise<void> {
  await billing.settle(jobCharge(job, modelId, costMicros));
}
