import type { Catalogue } from '../../shared/src/catalogue/catalogue.ts';
import type { Config } from '../../shared/src/config/config.ts';
import type { ReadinessCheck } from '../../shared/src/health/readiness.ts';
import type { Logger } from '../../shared/src/logging/logger.ts';
import type { ApiServices } from './services.ts';

/**
 * Everything the HTTP tier needs, built by `main` (or by a test) and passed in explicitly. Its own
 * module, so that the route plugins given all of it (the console's) need not import the app.
 */
export interface AppDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly catalogue: Catalogue;
  readonly readinessChecks: readonly ReadinessCheck[];
  readonly services: Pick<
    ApiServices,
    | 'accounts'
    | 'billing'
    | 'catalogue'
    | 'catalogueAdmin'
    | 'upstream'
    | 'media'
    | 'console'
    | 'selfServe'
    | 'requestLog'
    | 'channels'
  >;
}
