import type { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.ts';
import { registerSecrets } from '../upstream/secret-scrubber.ts';
import type { LiveChannel, SealedSecret, StoredChannel } from './channel.ts';
import type { ChannelsRepository } from './channels.repository.ts';

/** Every channel a process routes on, frozen; replaced whole on each change. */
export interface ChannelSnapshot {
  readonly all: readonly LiveChannel[];
  readonly byId: ReadonlyMap<string, LiveChannel>;
  /** The channels of each provider (enabled or not), in the store's order. */
  readonly byProvider: ReadonlyMap<string, readonly LiveChannel[]>;
}

export interface ChannelRegistryOptions {
  readonly repository: Pick<ChannelsRepository, 'list' | 'changeCounter' | 'update'>;
  /** Opens a stored credential; throws when no configured key can (the message says why). */
  readonly openSecret: (secret: SealedSecret) => string;
  readonly environment: readonly LiveChannel[];
  /** The URL a stored channel without its own calls; undefined for a provider the process does not know. */
  readonly defaultBaseUrl: (provider: string) => string | undefined;
  readonly redis: Redis;
  readonly subscriber: Redis;
  /** Key prefix (the queues' prefix). */
  readonly prefix: string;
  readonly logger: Logger;
  /** How often the store's change counter is read (a missed announcement is caught then). */
  readonly pollMs?: number;
}

/** A stored channel this process cannot use at start: the process stops with this message. */
export class ChannelUnreadable extends Error {
  constructor(channel: Pick<StoredChannel, 'id' | 'name'>, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`channel "${channel.name}" (${channel.id}) cannot be read: ${why}`);
    this.name = 'ChannelUnreadable';
  }
}

/**
 * The channels of this process: the stored ones (credentials opened in memory only, each one
 * registered with the secret scrubber before first use) and the environment ones, with the
 * refusals recorded for environment channels. Reloaded when any process announces a change
 * (pub/sub) and when the store's change counter moves (read every second), so every api and
 * worker process routes on a change within 2 s, without a restart.
 */
export class ChannelRegistry {
  private current: ChannelSnapshot = snapshotOf([]);
  private counter = -1;
  private poll: NodeJS.Timeout | undefined;
  private reloading: Promise<void> | null = null;
  private again = false;
  private readonly listeners: Array<(snapshot: ChannelSnapshot) => void> = [];
  private readonly changedChannel: string;
  private readonly envDisabledKey: string;

  private readonly options: ChannelRegistryOptions;

  constructor(options: ChannelRegistryOptions) {
    this.options = options;
    this.changedChannel = `${options.prefix}:{channels}:changed`;
    this.envDisabledKey = `${options.prefix}:{channels}:env-disabled`;
  }

  get snapshot(): ChannelSnapshot {
    return this.current;
  }

  /** Loads every channel; a stored one that cannot be opened stops the start (`ChannelUnreadable`). */
  async start(): Promise<void> {
    await this.load(true);
    const { subscriber } = this.options;
    subscriber.on('message', (channel: string) => {
      if (channel === this.changedChannel) this.refresh();
    });
    await subscriber.subscribe(this.changedChannel);
    this.poll = setInterval(() => void this.pollCounter(), this.options.pollMs ?? 1_000);
    this.poll.unref();
  }

  async close(): Promise<void> {
    if (this.poll !== undefined) clearInterval(this.poll);
    await this.options.subscriber.unsubscribe(this.changedChannel).catch(() => undefined);
    await this.reloading;
  }

  /** Called with each new snapshot. */
  onChange(listener: (snapshot: ChannelSnapshot) => void): void {
    this.listeners.push(listener);
  }

  /** After a write to the store: this process reloads now, every other one on the message. */
  async announce(): Promise<void> {
    await this.reload();
    await this.options.redis.publish(this.changedChannel, '1').catch((err: unknown) => {
      this.options.logger.warn(
        { err },
        'channel change not announced (Redis); others see it by the store counter',
      );
    });
  }

  /**
   * The provider refused the channel's credential: off until the operator edits it or its test
   * passes. Taken out of this process's routing at once, then recorded (in the store for an API
   * channel, in Redis for an environment one) and announced.
   */
  async autoDisable(channel: LiveChannel, reason: string): Promise<void> {
    if (channel.autoDisabledReason !== null) return;
    this.replace(channel.id, { ...channel, autoDisabledReason: reason });
    this.options.logger.warn(
      { channel: channel.id, provider: channel.provider, reason },
      'channel auto-disabled: the provider refused its credential',
    );
    if (channel.source === 'environment') {
      await this.options.redis.hset(this.envDisabledKey, channel.id, reason);
    } else {
      await this.options.repository.update(channel.id, { autoDisabledReason: reason }, new Date());
    }
    await this.announce();
  }

  /** An environment channel's refusal forgotten (its test passed). */
  async clearEnvironmentDisabled(channelId: string): Promise<void> {
    await this.options.redis.hdel(this.envDisabledKey, channelId);
  }

  /** Reloads soon (coalesced with a reload already running). */
  refresh(): void {
    void this.reload().catch((err: unknown) =>
      this.options.logger.warn({ err }, 'channels not reloaded; routing on the last ones known'),
    );
  }

  /** Reloads now; concurrent calls share one reload and one more after it. */
  async reload(): Promise<void> {
    if (this.reloading !== null) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          await this.load(false);
        } while (this.again);
      } finally {
        this.reloading = null;
      }
    })();
    return this.reloading;
  }

  private async pollCounter(): Promise<void> {
    try {
      const counter = await this.options.repository.changeCounter();
      if (counter !== this.counter) await this.reload();
    } catch (err) {
      this.options.logger.debug({ err }, 'channel change counter not read');
    }
  }

  private async load(atStart: boolean): Promise<void> {
    const { repository, environment } = this.options;
    const counter = await repository.changeCounter();
    const [stored, envDisabled] = await Promise.all([repository.list(), this.environmentRefusals(atStart)]);
    const live: LiveChannel[] = [];
    for (const channel of stored) {
      const opened = this.open(channel, atStart);
      if (opened !== null) live.push(opened);
    }
    for (const channel of environment) {
      const reason = envDisabled[channel.id];
      live.push(reason === undefined ? channel : { ...channel, autoDisabledReason: reason });
    }
    registerSecrets(live.map((channel) => channel.apiKey));
    this.counter = counter;
    this.install(snapshotOf(live));
  }

  private async environmentRefusals(atStart: boolean): Promise<Record<string, string>> {
    try {
      return await this.options.redis.hgetall(this.envDisabledKey);
    } catch (err) {
      if (atStart) throw err;
      // Redis away: environment channels keep the refusals last known.
      const known: Record<string, string> = {};
      for (const channel of this.current.all)
        if (channel.source === 'environment' && channel.autoDisabledReason !== null)
          known[channel.id] = channel.autoDisabledReason;
      return known;
    }
  }

  private open(channel: StoredChannel, atStart: boolean): LiveChannel | null {
    const baseUrl = channel.baseUrl ?? this.options.defaultBaseUrl(channel.provider);
    let apiKey: string;
    try {
      if (baseUrl === undefined) throw new Error(`its provider "${channel.provider}" is not configured here`);
      apiKey = this.options.openSecret(channel.secret);
    } catch (err) {
      const unreadable = new ChannelUnreadable(channel, err);
      if (atStart) throw unreadable;
      // A channel written by a process with another key: this one keeps routing on the rest.
      this.options.logger.error({ channel: channel.id }, unreadable.message);
      return null;
    }
    return Object.freeze({
      id: channel.id,
      provider: channel.provider,
      name: channel.name,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      keyLast4: channel.keyLast4,
      weight: channel.weight,
      priority: channel.priority,
      models: channel.models === null ? null : new Set(channel.models),
      enabled: channel.enabled,
      autoDisabledReason: channel.autoDisabledReason,
      source: 'api' as const,
    });
  }

  private replace(id: string, channel: LiveChannel): void {
    this.install(snapshotOf(this.current.all.map((c) => (c.id === id ? channel : c))));
  }

  private install(snapshot: ChannelSnapshot): void {
    this.current = snapshot;
    for (const listener of this.listeners) listener(snapshot);
  }
}

/** A snapshot of these channels. */
export function snapshotOf(channels: readonly LiveChannel[]): ChannelSnapshot {
  const byProvider = new Map<string, LiveChannel[]>();
  for (const channel of channels) {
    const list = byProvider.get(channel.provider);
    if (list === undefined) byProvider.set(channel.provider, [channel]);
    else list.push(channel);
  }
  return Object.freeze({
    all: Object.freeze([...channels]),
    byId: new Map(channels.map((channel) => [channel.id, channel])),
    byProvider,
  });
}
