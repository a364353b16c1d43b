import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';

/** What the native API routes need from the process. */
export interface NativeDeps {
  readonly config: Pick<Config, 'providers' | 'maxBodyBytes'>;
  readonly catalogue: Catalogue;
  readonly client: UpstreamClient;
  readonly billing: Pick<Billing, 'settleDeferred'>;
}
