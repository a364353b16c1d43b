import { Counter, Gauge } from 'prom-client';
import { childrenByTwo, metricsRegistry } from '../observability/registry.ts';
import type { LiveChannel } from './channel.ts';

/** How one attempt through a channel ended, for its metrics. */
export type ChannelOutcome = 'ok' | 'failed' | 'credential_refused';

const requests = new Counter({
  name: 'gateway_channel_requests_total',
  help: 'Upstream attempts through each channel, by channel id, provider and outcome (ok, failed, credential_refused).',
  labelNames: ['channel', 'provider', 'outcome'],
  registers: [metricsRegistry],
});

const cooldowns = new Counter({
  name: 'gateway_channel_cooldowns_total',
  help: 'Breakers this process saw open (a channel, or a channel for one model), by channel id and provider.',
  labelNames: ['channel', 'provider'],
  registers: [metricsRegistry],
});

const state = new Gauge({
  name: 'gateway_channel_state',
  help: 'Each channel’s state: 0 healthy, 1 cooling_down, 2 auto_disabled, 3 disabled.',
  labelNames: ['channel', 'provider'],
  registers: [metricsRegistry],
});

const okFor = childrenByTwo((channel, provider) => requests.labels(channel, provider, 'ok'));

export const CHANNEL_STATE_VALUES = { healthy: 0, cooling_down: 1, auto_disabled: 2, disabled: 3 } as const;

export function observeChannelAttempt(channel: LiveChannel, outcome: ChannelOutcome): void {
  if (outcome === 'ok') okFor(channel.id, channel.provider).inc();
  else requests.labels(channel.id, channel.provider, outcome).inc();
}

export function observeCooldownOpened(channel: Pick<LiveChannel, 'id' | 'provider'>): void {
  cooldowns.labels(channel.id, channel.provider).inc();
}

export function observeChannelState(
  channel: Pick<LiveChannel, 'id' | 'provider'>,
  value: keyof typeof CHANNEL_STATE_VALUES,
): void {
  state.labels(channel.id, channel.provider).set(CHANNEL_STATE_VALUES[value]);
}

/** A removed channel's series go (labels stay bounded by the channels that exist). */
export function forgetChannelSeries(channel: Pick<LiveChannel, 'id' | 'provider'>): void {
  state.remove(channel.id, channel.provider);
}
