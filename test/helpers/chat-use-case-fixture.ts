/** The chat use cases' collaborators for tests that call them directly (no app, no stores). */
import type { AdmissionContext } from '../../api/src/admission/admission-context.ts';
import type { ChatDeps } from '../../api/src/chat/chat-context.ts';
import type { ResolvedKey } from '../../shared/src/accounts/key-cache.ts';
import { NO_CALIBRATION } from '../../shared/src/billing/hold-calibration.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { UpstreamClient } from '../../shared/src/upstream/upstream-client.ts';
import { staticChannelRouting } from './static-channels.ts';

/** One charge the use case queued. */
export interface RecordedCharge {
  readonly costMicros: bigint;
  readonly usage: unknown;
}

/** The process's dependencies over `client`, every charge queued recorded in `charged`. */
export function chargeRecordingDeps(
  config: ChatDeps['config'] & Pick<Config, 'providers' | 'compatibleUpstreams'>,
  client: UpstreamClient,
): { deps: ChatDeps; charged: RecordedCharge[] } {
  const charged: RecordedCharge[] = [];
  const deps: ChatDeps = {
    config,
    channels: staticChannelRouting(config),
    client,
    billing: {
      calibration: NO_CALIBRATION,
      settleDeferred: async ({ costMicros, usage }) => {
        charged.push({ costMicros, usage });
      },
    },
    now: () => new Date('2026-01-01T00:00:00Z'),
  };
  return { deps, charged };
}

/** What admission established for request `req_1` of key `key_1`: a hold of 1,000 µIRT, the request's. */
export function heldAdmission(): AdmissionContext {
  return {
    key: { id: 'key_1', accountId: 'acct_1' } as ResolvedKey,
    holdId: 'req_1',
    estimateMicros: 1_000n,
    rateLimit: { limit: 60, remaining: 59 },
    holdOwner: 'request',
  };
}
