import type { Db } from 'mongodb';
import type { NewChannel, StoredChannel } from '../../channels/channel.ts';
import { ChannelNameTaken, type ChannelsRepository } from '../../channels/channels.repository.ts';
import { declareIndexes } from './indexes.ts';
import { isDuplicateKeyOn } from './mongo-errors.ts';

/** A channel's document: the credential sealed (`secret`), never in plain text. */
export interface ChannelDocument {
  _id: string;
  provider: string;
  name: string;
  base_url: string | null;
  secret_key_id: string;
  secret: string;
  key_last4: string;
  weight: number;
  priority: number;
  models: string[] | null;
  enabled: boolean;
  auto_disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The one document of `channel_changes`: the counter every write bumps. */
interface CounterDocument {
  _id: 'channels';
  counter: number;
}

export const CHANNELS_COLLECTION = 'channels';
const CHANGES_COLLECTION = 'channel_changes';

declareIndexes(CHANNELS_COLLECTION, [
  // serves: insert() and update() refusing a name another channel has
  { key: { name: 1 }, name: 'name_unique', unique: true },
]);

/** The channels repository on MongoDB. */
export function createMongoChannelsRepository(db: Db): ChannelsRepository {
  const channels = db.collection<ChannelDocument>(CHANNELS_COLLECTION);
  const changes = db.collection<CounterDocument>(CHANGES_COLLECTION);
  const bump = () => changes.updateOne({ _id: 'channels' }, { $inc: { counter: 1 } }, { upsert: true });
  const named = async <T>(name: string | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (err) {
      if (name !== undefined && isDuplicateKeyOn(err, 'name_unique')) throw new ChannelNameTaken(name);
      throw err;
    }
  };

  return {
    async insert(channel: NewChannel, now: Date) {
      const doc: ChannelDocument = {
        _id: channel.id,
        provider: channel.provider,
        name: channel.name,
        base_url: channel.baseUrl,
        secret_key_id: channel.secret.keyId,
        secret: channel.secret.sealed,
        key_last4: channel.keyLast4,
        weight: channel.weight,
        priority: channel.priority,
        models: channel.models === null ? null : [...channel.models],
        enabled: channel.enabled,
        auto_disabled_reason: null,
        created_at: now,
        updated_at: now,
      };
      await named(channel.name, () => channels.insertOne(doc));
      await bump();
      return channelOf(doc);
    },

    async findById(id) {
      const doc = await channels.findOne({ _id: id });
      return doc === null ? null : channelOf(doc);
    },

    async list() {
      return (await channels.find().sort({ created_at: 1, _id: 1 }).toArray()).map(channelOf);
    },

    async update(id, change, now) {
      const set: Partial<ChannelDocument> = { updated_at: now };
      if (change.provider !== undefined) set.provider = change.provider;
      if (change.name !== undefined) set.name = change.name;
      if (change.baseUrl !== undefined) set.base_url = change.baseUrl;
      if (change.keyLast4 !== undefined) set.key_last4 = change.keyLast4;
      if (change.weight !== undefined) set.weight = change.weight;
      if (change.priority !== undefined) set.priority = change.priority;
      if (change.models !== undefined) set.models = change.models === null ? null : [...change.models];
      if (change.enabled !== undefined) set.enabled = change.enabled;
      if (change.autoDisabledReason !== undefined) set.auto_disabled_reason = change.autoDisabledReason;
      if (change.secret !== undefined) {
        set.secret_key_id = change.secret.keyId;
        set.secret = change.secret.sealed;
      }
      const doc = await named(change.name, () =>
        channels.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }),
      );
      if (doc === null) return null;
      await bump();
      return channelOf(doc);
    },

    async delete(id) {
      const removed = (await channels.deleteOne({ _id: id })).deletedCount === 1;
      if (removed) await bump();
      return removed;
    },

    async changeCounter() {
      return (await changes.findOne({ _id: 'channels' }))?.counter ?? 0;
    },
  };
}

function channelOf(doc: ChannelDocument): StoredChannel {
  return {
    id: doc._id,
    provider: doc.provider,
    name: doc.name,
    baseUrl: doc.base_url,
    secret: { keyId: doc.secret_key_id, sealed: doc.secret },
    keyLast4: doc.key_last4,
    weight: doc.weight,
    priority: doc.priority,
    models: doc.models,
    enabled: doc.enabled,
    autoDisabledReason: doc.auto_disabled_reason,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}
