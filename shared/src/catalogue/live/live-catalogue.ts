import type { Logger } from '../../logging/logger.ts';
import type { Redis } from '../../redis/redis.ts';
import type { Catalogue } from '../catalogue.ts';
import { buildSnapshot, type CatalogueSnapshot, type ProviderAvailability } from './build-snapshot.ts';
import type { CatalogueOverrides, CatalogueOverridesRepository } from './catalogue-overrides.repository.ts';

/** How often a process compares its snapshot's version with the store's (a missed announcement). */
export const VERSION_CHECK_MS = 1_000;

/** The pub/sub channel of a deployment's catalogue changes (under the Redis prefix). */
export function catalogueChannel(prefix: string): string {
  return `${prefix}:catalogue:changed`;
}

/**
 * The catalogue every part of a process reads: a `Catalogue` whose every call answers from the
 * current snapshot, swapped whole when the overrides or the available providers change. Whoever
 * must price one request at one set of prices takes `current()` once and keeps it.
 *
 * The inputs of a snapshot (build-snapshot.ts): the catalogue file, the stored overrides, and
 * which providers are available (`ProviderAvailability`, asked again at every rebuild).
 */
export interface LiveCatalogue extends Catalogue {
  current(): CatalogueSnapshot;
  /** Reads the overrides again and rebuilds when the store's version moved (or `force`). */
  refresh(options?: { force?: boolean }): Promise<void>;
  /** Rebuilds from the overrides already read: call after the available providers changed. */
  rebuild(): void;
  /** After a write to the store: refreshes here at once, then tells every other process. */
  announceChange(): Promise<void>;
  /** Called with each new snapshot and the one it replaced. */
  onChange(listener: (next: CatalogueSnapshot, previous: CatalogueSnapshot) => void): void;
  /** Subscribes and starts the version check; call once before serving. */
  start(): Promise<void>;
  /** Stops the version check and unsubscribes (the connections are the caller's). */
  close(): Promise<void>;
}

export interface LiveCatalogueOptions {
  /** The catalogue file as loaded (`loadCatalogue`): the base every snapshot starts from. */
  readonly base: Catalogue;
  readonly overrides: CatalogueOverridesRepository;
  readonly availability: ProviderAvailability;
  /** A command connection (publishes announcements). */
  readonly redis: Pick<Redis, 'publish'>;
  /** A dedicated connection for the subscription; none: the version check alone. */
  readonly subscriber?: Redis;
  readonly channel: string;
  readonly logger: Logger;
  readonly versionCheckMs?: number;
}

/** Reads the overrides and builds the first snapshot; `start` it to follow changes. */
export async function createLiveCatalogue(options: LiveCatalogueOptions): Promise<LiveCatalogue> {
  const log = options.logger.child({ component: 'live-catalogue' });
  let overrides: CatalogueOverrides = await options.overrides.load();
  let snapshot = buildSnapshot(options.base, overrides, options.availability);
  const listeners: Array<(next: CatalogueSnapshot, previous: CatalogueSnapshot) => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | null = null;
  let again = false;

  const swap = (next: CatalogueSnapshot) => {
    const previous = snapshot;
    snapshot = next;
    for (const listener of listeners) {
      try {
        listener(next, previous);
      } catch (err) {
        log.error({ err }, 'catalogue change listener failed');
      }
    }
  };

  async function load(force: boolean): Promise<void> {
    const version = await options.overrides.version();
    if (!force && version === overrides.version) return;
    overrides = await options.overrides.load();
    swap(buildSnapshot(options.base, overrides, options.availability));
    log.info({ version: overrides.version }, 'catalogue snapshot rebuilt');
  }

  /** One load at a time; a refresh asked for meanwhile runs once after it. */
  function refresh(refreshOptions: { force?: boolean } = {}): Promise<void> {
    if (refreshing !== null) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          again = false;
          await load(refreshOptions.force === true);
        } while (again);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  const onMessage = (channel: string) => {
    if (channel !== options.channel) return;
    refresh().catch((err: unknown) =>
      log.warn({ err }, 'catalogue refresh failed; the version check retries'),
    );
  };

  const onReady = () => onMessage(options.channel);
  const current = () => snapshot;
  return {
    get exchangeRate() {
      return snapshot.exchangeRate;
    },
    list: () => snapshot.list(),
    get: (id) => snapshot.get(id),
    resolve: (name) => snapshot.resolve(name),
    current,
    refresh,
    rebuild() {
      swap(buildSnapshot(options.base, overrides, options.availability));
    },
    async announceChange() {
      await refresh();
      try {
        await options.redis.publish(options.channel, String(snapshot.version));
      } catch (err) {
        // Stored all the same: every process finds it by the version check.
        log.warn({ err }, 'catalogue change not announced; the version check spreads it');
      }
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async start() {
      if (timer !== undefined) return;
      const every = options.versionCheckMs ?? VERSION_CHECK_MS;
      timer = setInterval(() => {
        refresh().catch((err: unknown) => log.warn({ err }, 'catalogue version check failed'));
      }, every);
      timer.unref();
      if (options.subscriber !== undefined) {
        options.subscriber.on('message', onMessage);
        // Messages missed while Redis was away: the version check has them too, but at once is better.
        options.subscriber.on('ready', onReady);
        try {
          await options.subscriber.subscribe(options.channel);
        } catch (err) {
          log.warn(
            { err },
            'catalogue announcements not subscribed; the version check alone follows changes',
          );
        }
      }
    },
    async close() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (options.subscriber !== undefined) {
        options.subscriber.off('message', onMessage);
        options.subscriber.off('ready', onReady);
        await options.subscriber.unsubscribe(options.channel).catch(() => undefined);
      }
      await refreshing?.catch(() => undefined);
    },
  };
}
