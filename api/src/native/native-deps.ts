import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChannelRouting } from '../../../shared/src/channels/channel-router.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';
import type { AdmissionDeps } from '../admission/admit-request.ts';

/** What the native API routes need from the process. */
export interface NativeDeps {
  readonly config: Pick<Config, 'simulateProviders' | 'maxBodyBytes' | 'streamDrainMs'>;
  /** The provider channels native requests are sent through. */
  readonly channels: ChannelRouting;
  readonly catalogue: Catalogue;
  readonly client: UpstreamClient;
  /** Admission's part too: a second hold once a request's cost is known from its body (an upload's duration). */
  readonly billing: Pick<Billing, 'settleDeferred' | 'calibration'> & AdmissionDeps['billing'];
}
