import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import {
  type ApiKeyRecord,
  type ApiKeysRepository,
  newKeyId,
  SLOT_TAKEN,
  STALE_REVISION,
} from '../../accounts/api-keys.repository.ts';
import type { KeySettings } from '../../accounts/key-settings.ts';
import { isUniqueViolation } from './sqlite-errors.ts';

/**
 * A row of table `api_keys` (migrations.ts), read with `setReadBigInts(true)`: every INTEGER comes
 * back as bigint, so a monthly cap above 2^53 µIRT is never rounded through a number.
 */
interface ApiKeyRow {
  id: string;
  account_id: string;
  hash: string;
  last4: string;
  name: string;
  rate_limit: bigint;
  monthly_cap: bigint | null;
  allowed_ips: string;
  allowed_models: string | null;
  identity_injection: bigint;
  expires_at: bigint | null;
  active: bigint;
  deleted_at: bigint | null;
  created_at: bigint;
  updated_at: bigint;
  revision: bigint;
  slot: string | null;
}

/** The column of each setting, and how its value is stored. */
const SETTING_COLUMNS: {
  readonly [K in keyof KeySettings]-?: readonly [string, (value: KeySettings[K]) => SQLInputValue];
} = {
  name: ['name', (value) => value],
  rateLimit: ['rate_limit', (value) => value],
  monthlyCapMicros: ['monthly_cap', (value) => value],
  allowedIps: ['allowed_ips', (value) => JSON.stringify(value)],
  allowedModels: ['allowed_models', (value) => (value === null ? null : JSON.stringify(value))],
  identityInjection: ['identity_injection', (value) => (value ? 1 : 0)],
  expiresAt: ['expires_at', (value) => (value === null ? null : value.getTime())],
  active: ['active', (value) => (value ? 1 : 0)],
};
const SETTINGS = Object.keys(SETTING_COLUMNS) as (keyof KeySettings)[];
const columnOf = (setting: keyof KeySettings): string => SETTING_COLUMNS[setting][0];

/** The API keys repository on SQLite. */
export function createSqliteApiKeysRepository(db: DatabaseSync): ApiKeysRepository {
  const columns = SETTINGS.map(columnOf);
  const insert = db.prepare(
    `INSERT INTO api_keys (id, account_id, hash, last4, ${columns.join(', ')},
       deleted_at, created_at, updated_at, revision, slot)
     VALUES (:id, :account_id, :hash, :last4, ${columns.map((column) => `:${column}`).join(', ')},
       NULL, :now, :now, 0, :slot)
     RETURNING *`,
  );
  const byHash = db.prepare('SELECT * FROM api_keys WHERE hash = ?');
  const byId = db.prepare('SELECT * FROM api_keys WHERE id = ?');
  const byAccount = db.prepare(
    'SELECT * FROM api_keys WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at, id',
  );
  const slotsOf = db.prepare('SELECT slot FROM api_keys WHERE account_id = ? AND slot IS NOT NULL');
  const releaseExpired = db.prepare(
    `UPDATE api_keys SET slot = NULL, revision = revision + 1
     WHERE account_id = :account_id AND slot IS NOT NULL AND expires_at IS NOT NULL AND expires_at <= :now`,
  );
  // One statement for any subset of settings: `:set_<column>` says whether that column changes.
  const update = db.prepare(
    `UPDATE api_keys SET
       ${columns.map((column) => `${column} = IIF(:set_${column}, :${column}, ${column})`).join(',\n       ')},
       slot = :slot, updated_at = :now, revision = revision + 1
     WHERE id = :id AND revision = :revision AND deleted_at IS NULL
     RETURNING *`,
  );
  const markDeleted = db.prepare(
    `UPDATE api_keys SET deleted_at = :now, updated_at = :now, slot = NULL, revision = revision + 1
     WHERE id = :id AND deleted_at IS NULL
     RETURNING *`,
  );
  for (const statement of [insert, byHash, byId, byAccount, update, markDeleted])
    statement.setReadBigInts(true);

  return {
    async insert(key, slot, now) {
      try {
        const row = insert.get({
          id: newKeyId(),
          account_id: key.accountId,
          hash: key.hash,
          last4: key.last4,
          ...settingsParams(key),
          now: now.getTime(),
          slot,
        });
        return toRecord(row as unknown as ApiKeyRow);
      } catch (error) {
        if (isUniqueViolation(error, 'api_keys.slot')) return SLOT_TAKEN;
        throw error;
      }
    },

    async findByHash(hash) {
      return toRecordOrNull(byHash.get(hash));
    },

    async findById(id) {
      return toRecordOrNull(byId.get(id));
    },

    async listByAccount(accountId) {
      return byAccount.all(accountId).map((row) => toRecord(row as unknown as ApiKeyRow));
    },

    async occupiedSlots(accountId) {
      return slotsOf.all(accountId).map((row) => row.slot as string);
    },

    async releaseExpiredSlots(accountId, now) {
      return Number(releaseExpired.run({ account_id: accountId, now: now.getTime() }).changes);
    },

    async update(id, revision, changes, slot, now) {
      const params: Record<string, SQLInputValue> = { id, revision, slot, now: now.getTime() };
      const given = settingsParams(changes);
      for (const column of columns) {
        params[`set_${column}`] = column in given ? 1 : 0;
        params[column] = given[column] ?? null;
      }
      try {
        const row = update.get(params);
        return row === undefined ? STALE_REVISION : toRecord(row as unknown as ApiKeyRow);
      } catch (error) {
        if (isUniqueViolation(error, 'api_keys.slot')) return SLOT_TAKEN;
        throw error;
      }
    },

    async markDeleted(id, now) {
      return toRecordOrNull(markDeleted.get({ id, now: now.getTime() }));
    },
  };
}

/** The stored values of the settings present in `settings`, by column. */
function settingsParams(settings: Partial<KeySettings>): Record<string, SQLInputValue> {
  const params: Record<string, SQLInputValue> = {};
  for (const setting of SETTINGS) {
    const value = settings[setting];
    if (value === undefined) continue;
    const [column, encode] = SETTING_COLUMNS[setting] as readonly [string, (value: unknown) => SQLInputValue];
    params[column] = encode(value);
  }
  return params;
}

function toRecordOrNull(row: unknown): ApiKeyRecord | null {
  return row === undefined ? null : toRecord(row as ApiKeyRow);
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    hash: row.hash,
    last4: row.last4,
    name: row.name,
    rateLimit: Number(row.rate_limit),
    monthlyCapMicros: row.monthly_cap,
    allowedIps: JSON.parse(row.allowed_ips) as string[],
    allowedModels: row.allowed_models === null ? null : (JSON.parse(row.allowed_models) as string[]),
    identityInjection: row.identity_injection === 1n,
    expiresAt: dateOrNull(row.expires_at),
    active: row.active === 1n,
    deletedAt: dateOrNull(row.deleted_at),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    revision: Number(row.revision),
    slot: row.slot,
  };
}

function dateOrNull(ms: bigint | null): Date | null {
  return ms === null ? null : new Date(Number(ms));
}
