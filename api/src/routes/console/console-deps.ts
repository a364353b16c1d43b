import type { Accounts } from '../../../../shared/src/accounts/accounts.ts';
import type { Billing } from '../../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../../shared/src/catalogue/catalogue.ts';
import type { CatalogueAdmin } from '../../../../shared/src/catalogue/live/catalogue-admin.ts';
import type { Config } from '../../../../shared/src/config/config.ts';
import type { ConsoleServices } from '../../console/console-services.ts';
import type { SelfServeServices } from '../../self-serve/self-serve-services.ts';
import type { MediaDeps } from '../../use-cases/run-sync-job.ts';

/** Where the console's endpoints live (docs/console.md). */
export const CONSOLE_API_PREFIX = '/console/api';

/** What every console route plugin is registered with (built from the app's dependencies). */
export interface ConsoleDeps {
  readonly config: Pick<Config, 'adminToken' | 'publicBaseUrl' | 'billing' | 'media'>;
  readonly catalogue: Catalogue;
  /** The operator's changes to the live catalogue ("Models and prices"). */
  readonly catalogueAdmin: CatalogueAdmin;
  readonly accounts: Accounts;
  readonly billing: Billing;
  readonly media: Pick<MediaDeps, 'jobs' | 'storage' | 'queues'>;
  readonly console: ConsoleServices;
  /** Sign-up, reset by email, top-ups through the gateway, vouchers. */
  readonly selfServe: SelfServeServices;
}
