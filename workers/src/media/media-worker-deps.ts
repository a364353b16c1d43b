import type { Billing } from '../../../shared/src/billing/billing.ts';
import type { Catalogue } from '../../../shared/src/catalogue/catalogue.ts';
import type { ChannelRouting } from '../../../shared/src/channels/channel-router.ts';
import type { Config } from '../../../shared/src/config/config.ts';
import type { Logger } from '../../../shared/src/logging/logger.ts';
import type { MediaHandoff } from '../../../shared/src/media-jobs/media-handoff.ts';
import type { MediaJobsRepository } from '../../../shared/src/media-jobs/media-jobs.repository.ts';
import type { MediaStorage } from '../../../shared/src/media-jobs/media-storage.ts';
import type { WaiterCheck } from '../../../shared/src/media-jobs/waiter-lease.ts';
import type { VideoRecords } from '../../../shared/src/request-log/video-records.ts';
import type { UpstreamClient } from '../../../shared/src/upstream/upstream-client.ts';

/** What the media processors need, wired once per worker process. */
export interface MediaWorkerDeps {
  readonly jobs: MediaJobsRepository;
  readonly storage: MediaStorage;
  /** Short-lived Redis copies of small results for the waiting api (S3 stays the durable copy). */
  readonly handoff: MediaHandoff;
  /** Whether an api still waits for a synchronous job: one nobody waits for is not run. */
  readonly waiters: WaiterCheck;
  readonly billing: Pick<Billing, 'settle' | 'release'>;
  readonly client: UpstreamClient;
  readonly catalogue: Pick<Catalogue, 'get'>;
  readonly config: Pick<Config, 'media'>;
  /** The provider channels the routes call through. */
  readonly channels: ChannelRouting;
  readonly now: () => Date;
  readonly logger: Logger;
  /** The request log records of the requests that started videos, completed when renders end. */
  readonly videoRecords?: VideoRecords;
}
