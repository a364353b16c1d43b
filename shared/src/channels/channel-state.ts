import type { ChannelStatus } from './channel.ts';

/** What a channel's health looks like right now, as the operator API answers it. */
export interface ChannelState {
  readonly status: ChannelStatus;
  /** Why it is not healthy (the refusal, the failures that opened its breaker); null when healthy. */
  readonly statusReason: string | null;
  /** While `cooling_down`: when its probe is let through. */
  readonly cooldownUntil: Date | null;
}

/** A channel's traffic over the last hour. */
export interface ChannelFigures {
  readonly requests: number;
  readonly failures: number;
  /** Null before its first request of the hour. */
  readonly p50LatencyMs: number | null;
}

/**
 * What the operator side (API, console) needs from the routing side of channels: each channel's
 * live state and figures, and the hooks that keep every process in step after a change.
 */
export interface ChannelControl {
  state(channel: {
    readonly id: string;
    readonly enabled: boolean;
    readonly autoDisabledReason: string | null;
  }): ChannelState;
  figures(channelId: string): ChannelFigures;
  /** After a store write: every api and worker process reloads its channels (within 2 s). */
  announceChange(): Promise<void>;
  /** After an edit or a passing test of a channel: its breaker forgets its failures. */
  resetHealth(channelId: string): Promise<void>;
}
