import type { AccountsRepository } from '../accounts/accounts.repository.ts';
import type { ApiKeysRepository } from '../accounts/api-keys.repository.ts';
import type { CredentialsRepository } from '../accounts/credentials.repository.ts';
import type { MoneyStore } from '../billing/money-store.ts';
import type { ChannelsRepository } from '../channels/channels.repository.ts';
import type { MediaJobsRepository } from '../media-jobs/media-jobs.repository.ts';

/** Which implementation holds the durable state. */
export type StoreKind = 'sqlite' | 'mongodb';

/**
 * The durable state of the service behind one contract per aggregate: accounts and keys (with the
 * accounts' console credentials), money, media jobs. SQLite (one file, the default of a single
 * host) and MongoDB (a replica set, for replicas on many hosts) implement it; the domain above is
 * written once.
 */
export interface Store {
  readonly kind: StoreKind;
  /** Where the data is, for the start-up log line: a file path, or a host without credentials. */
  readonly location: string;
  readonly accounts: AccountsRepository;
  readonly keys: ApiKeysRepository;
  /** Console passwords and one-time links. */
  readonly credentials: CredentialsRepository;
  readonly money: MoneyStore;
  readonly mediaJobs: MediaJobsRepository;
  /** Upstream channels (credentials sealed). */
  readonly channels: ChannelsRepository;
  /** Resolves when the store answers a trivial read (readiness); rejects otherwise. */
  ping(): Promise<void>;
  /** Releases the connection or file; the store is unusable afterwards. */
  close(): Promise<void>;
}
