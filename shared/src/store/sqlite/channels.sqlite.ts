import type { DatabaseSync } from 'node:sqlite';
import type { ChannelChanges, NewChannel, StoredChannel } from '../../channels/channel.ts';
import { ChannelNameTaken, type ChannelsRepository } from '../../channels/channels.repository.ts';
import { transaction } from './database.ts';
import { isUniqueViolation } from './sqlite-errors.ts';

interface ChannelRow {
  id: string;
  provider: string;
  name: string;
  base_url: string | null;
  secret_key_id: string;
  secret: string;
  key_last4: string;
  weight: number;
  priority: number;
  models: string | null;
  enabled: number;
  auto_disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS: ReadonlyArray<[keyof ChannelChanges, string]> = [
  ['provider', 'provider'],
  ['name', 'name'],
  ['baseUrl', 'base_url'],
  ['keyLast4', 'key_last4'],
  ['weight', 'weight'],
  ['priority', 'priority'],
  ['models', 'models'],
  ['enabled', 'enabled'],
  ['autoDisabledReason', 'auto_disabled_reason'],
];

/** The channels repository on SQLite: tables `channels` and `channel_changes` (migrations.ts). */
export function createSqliteChannelsRepository(db: DatabaseSync): ChannelsRepository {
  const insert = db.prepare(
    `INSERT INTO channels (id, provider, name, base_url, secret_key_id, secret, key_last4, weight, priority,
       models, enabled, auto_disabled_reason, created_at, updated_at)
     VALUES (:id, :provider, :name, :base_url, :secret_key_id, :secret, :key_last4, :weight, :priority,
       :models, :enabled, NULL, :now, :now)`,
  );
  const byId = db.prepare('SELECT * FROM channels WHERE id = ?');
  const all = db.prepare('SELECT * FROM channels ORDER BY created_at, id');
  const remove = db.prepare('DELETE FROM channels WHERE id = ?');
  const bump = db.prepare('UPDATE channel_changes SET counter = counter + 1 WHERE id = 1');
  const counter = db.prepare('SELECT counter FROM channel_changes WHERE id = 1');

  const named = <T>(name: string | undefined, write: () => T): T => {
    try {
      return write();
    } catch (err) {
      if (name !== undefined && isUniqueViolation(err, 'channels.name')) throw new ChannelNameTaken(name);
      throw err;
    }
  };

  return {
    async insert(channel: NewChannel, now: Date) {
      return named(channel.name, () =>
        transaction(db, () => {
          insert.run({
            id: channel.id,
            provider: channel.provider,
            name: channel.name,
            base_url: channel.baseUrl,
            secret_key_id: channel.secret.keyId,
            secret: channel.secret.sealed,
            key_last4: channel.keyLast4,
            weight: channel.weight,
            priority: channel.priority,
            models: channel.models === null ? null : JSON.stringify(channel.models),
            enabled: channel.enabled ? 1 : 0,
            now: now.getTime(),
          });
          bump.run();
          return channelOf(byId.get(channel.id) as unknown as ChannelRow);
        }),
      );
    },

    async findById(id) {
      const row = byId.get(id) as ChannelRow | undefined;
      return row === undefined ? null : channelOf(row);
    },

    async list() {
      return (all.all() as unknown as ChannelRow[]).map(channelOf);
    },

    async update(id, changes, now) {
      const sets: string[] = ['updated_at = :now'];
      const values: Record<string, string | number | null> = { id, now: now.getTime() };
      for (const [field, column] of COLUMNS) {
        if (!(field in changes)) continue;
        const value = changes[field];
        sets.push(`${column} = :${column}`);
        values[column] =
          field === 'models'
            ? value === null
              ? null
              : JSON.stringify(value)
            : field === 'enabled'
              ? value
                ? 1
                : 0
              : (value as string | number | null);
      }
      if (changes.secret !== undefined) {
        sets.push('secret_key_id = :secret_key_id', 'secret = :secret');
        values.secret_key_id = changes.secret.keyId;
        values.secret = changes.secret.sealed;
      }
      const statement = db.prepare(`UPDATE channels SET ${sets.join(', ')} WHERE id = :id`);
      return named(changes.name, () =>
        transaction(db, () => {
          if (Number(statement.run(values).changes) === 0) return null;
          bump.run();
          return channelOf(byId.get(id) as unknown as ChannelRow);
        }),
      );
    },

    async delete(id) {
      return transaction(db, () => {
        const removed = Number(remove.run(id).changes) > 0;
        if (removed) bump.run();
        return removed;
      });
    },

    async changeCounter() {
      return Number((counter.get() as { counter: number }).counter);
    },
  };
}

function channelOf(row: ChannelRow): StoredChannel {
  return {
    id: row.id,
    provider: row.provider,
    name: row.name,
    baseUrl: row.base_url,
    secret: { keyId: row.secret_key_id, sealed: row.secret },
    keyLast4: row.key_last4,
    weight: row.weight,
    priority: row.priority,
    models: row.models === null ? null : (JSON.parse(row.models) as string[]),
    enabled: row.enabled === 1,
    autoDisabledReason: row.auto_disabled_reason,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
