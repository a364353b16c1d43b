import type { ChannelChanges, NewChannel, StoredChannel } from './channel.ts';

/**
 * The channel store contract (SQLite and MongoDB implement it). Names are unique: `insert` and
 * `update` reject a taken one with `ChannelNameTaken`. Every write bumps a store-wide change
 * counter, so a process that missed an announcement still sees that something changed.
 */
export interface ChannelsRepository {
  insert(channel: NewChannel, now: Date): Promise<StoredChannel>;
  findById(id: string): Promise<StoredChannel | null>;
  /** Every channel, oldest first. */
  list(): Promise<StoredChannel[]>;
  /** Null when no channel has that id. */
  update(id: string, changes: ChannelChanges, now: Date): Promise<StoredChannel | null>;
  /** Whether a channel was removed. */
  delete(id: string): Promise<boolean>;
  /** A number that grows on every insert, update and delete (a cheap "did anything change"). */
  changeCounter(): Promise<number>;
}

/** A channel name already used by another channel. */
export class ChannelNameTaken extends Error {
  readonly channelName: string;
  constructor(channelName: string) {
    super(`a channel named "${channelName}" already exists`);
    this.channelName = channelName;
    this.name = 'ChannelNameTaken';
  }
}
