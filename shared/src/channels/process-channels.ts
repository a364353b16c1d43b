import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { createRedis } from '../redis/redis.ts';
import type { LiveChannel, SealedSecret } from './channel.ts';
import { ChannelBreaker } from './channel-breaker.ts';
import { ChannelFigures } from './channel-figures.ts';
import { forgetChannelSeries, observeChannelState, observeCooldownOpened } from './channel-metrics.ts';
import { ChannelRegistry } from './channel-registry.ts';
import { ChannelRouter, type ChannelRouting } from './channel-router.ts';
import type { ChannelControl, ChannelState, ChannelFigures as Figures } from './channel-state.ts';
import type { ChannelsRepository } from './channels.repository.ts';
import { environmentChannels, providerBaseUrl } from './environment-channels.ts';

export interface ProcessChannelsOptions {
  readonly config: Pick<Config, 'providers' | 'compatibleUpstreams' | 'channelBreaker' | 'queues' | 'redis'>;
  readonly repository: ChannelsRepository;
  readonly openSecret: (secret: SealedSecret) => string;
  readonly redis: Redis;
  readonly logger: Logger;
  /** A connection for the subscriptions (one is opened when not given). */
  readonly subscriber?: Redis;
}

/** A process's channels: what routing reads, what the operator side controls, and their upkeep. */
export interface ProcessChannels extends ChannelControl {
  readonly routing: ChannelRouting;
  /** Which providers have an enabled channel now, and a call on each change of the channels. */
  readonly providers: { isConfigured(provider: string): boolean; onChange(listener: () => void): void };
  readonly registry: ChannelRegistry;
  /** The store's channels (the operator side writes here, then announces). */
  readonly repository: ChannelsRepository;
  readonly breaker: ChannelBreaker;
  readonly figuresOf: ChannelFigures;
  close(): Promise<void>;
}

/**
 * Loads the channels, the breaker view and the figures of this process and keeps them current.
 * Every api and worker process starts one; a stored channel it cannot read stops its start.
 */
export async function startProcessChannels(options: ProcessChannelsOptions): Promise<ProcessChannels> {
  const { config, redis, logger } = options;
  const prefix = config.queues.prefix;
  const ownSubscriber = options.subscriber === undefined;
  const subscriber = options.subscriber ?? createRedis(config.redis, { connectionName: 'channels' });
  const registry = new ChannelRegistry({
    repository: options.repository,
    openSecret: options.openSecret,
    environment: environmentChannels(config),
    defaultBaseUrl: (provider) => providerBaseUrl(config, provider),
    redis,
    subscriber,
    prefix,
    logger,
  });
  const breaker = new ChannelBreaker(redis, subscriber, prefix, config.channelBreaker, logger);
  const figures = new ChannelFigures(redis, prefix, () => registry.snapshot.byId.keys(), logger);
  const router = new ChannelRouter(() => registry.snapshot, breaker, figures, registry);

  const stateOf = (channel: {
    readonly id: string;
    readonly enabled: boolean;
    readonly autoDisabledReason: string | null;
  }): ChannelState => {
    if (!channel.enabled) return { status: 'disabled', statusReason: null, cooldownUntil: null };
    const refused =
      channel.autoDisabledReason ?? registry.snapshot.byId.get(channel.id)?.autoDisabledReason ?? null;
    if (refused !== null) return { status: 'auto_disabled', statusReason: refused, cooldownUntil: null };
    const open = breaker.openState(channel.id);
    if (open !== undefined)
      return { status: 'cooling_down', statusReason: open.reason, cooldownUntil: new Date(open.untilMs) };
    return { status: 'healthy', statusReason: null, cooldownUntil: null };
  };
  const observed = new Map<string, LiveChannel>();
  const observeStates = () => {
    const current = registry.snapshot.byId;
    for (const [id, channel] of observed) if (!current.has(id)) forgetChannelSeries(channel);
    observed.clear();
    for (const channel of current.values()) {
      observed.set(channel.id, channel);
      observeChannelState(channel, stateOf(channel).status);
    }
  };
  registry.onChange(observeStates);
  breaker.onChange((scope, state) => {
    const channel = registry.snapshot.byId.get(scope.split('|')[0] ?? scope);
    if (channel === undefined) return;
    if (state !== null) {
      observeCooldownOpened(channel);
      logger.warn(
        {
          channel: channel.id,
          provider: channel.provider,
          scope,
          cooldownMs: state.cooldownMs,
          reason: state.reason,
        },
        'channel cooling down',
      );
    } else {
      logger.info({ channel: channel.id, provider: channel.provider, scope }, 'channel healthy again');
    }
    observeChannelState(channel, stateOf(channel).status);
  });

  await registry.start();
  await breaker.start().catch((err: unknown) => {
    // Without Redis at start the breaker view begins empty and catches up on its next read.
    logger.warn({ err }, 'channel breaker state not read at start');
  });
  figures.start();
  observeStates();

  return {
    routing: router,
    providers: {
      isConfigured: (provider) => router.isConfigured(provider),
      onChange: (listener) => registry.onChange(() => listener()),
    },
    registry,
    repository: options.repository,
    breaker,
    figuresOf: figures,
    state: stateOf,
    figures: (channelId: string): Figures => figures.figures(channelId),
    announceChange: () => registry.announce(),
    async resetHealth(channelId: string) {
      await breaker.reset(channelId);
      await registry.clearEnvironmentDisabled(channelId);
      await registry.announce();
    },
    async close() {
      await figures.close();
      await breaker.close();
      await registry.close();
      if (ownSubscriber) subscriber.disconnect();
    },
  };
}
