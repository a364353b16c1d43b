import { randomBytes } from 'node:crypto';
import type { KeySettings } from './key-settings.ts';

/** A stored API key: its settings plus identity, secret digest and bookkeeping. Never the key. */
export interface ApiKeyRecord extends KeySettings {
  readonly id: string;
  readonly accountId: string;
  /** SHA-256 hex of the full key. */
  readonly hash: string;
  readonly last4: string;
  readonly deletedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Bumped by every write; an update names the revision it was computed from (optimistic lock). */
  readonly revision: number;
  /** The account's active-key slot this key holds (see key-slots.ts), or null. */
  readonly slot: string | null;
}

/** What a caller provides to insert a key; bookkeeping fields are set by the repository. */
export type NewApiKey = Pick<ApiKeyRecord, 'accountId' | 'hash' | 'last4'> & KeySettings;

/** An update would give the key a slot another key holds: pick another one. */
export const SLOT_TAKEN = 'slot_taken';
/** The key changed since it was read: read it again and recompute. */
export const STALE_REVISION = 'stale_revision';

/**
 * The keys half of the accounts-and-keys store contract (SQLite and MongoDB implement it). A slot
 * value is unique across keys (the store refuses a second holder with SLOT_TAKEN).
 */
export interface ApiKeysRepository {
  insert(key: NewApiKey, slot: string | null, now: Date): Promise<ApiKeyRecord | typeof SLOT_TAKEN>;
  /** Finds a key by the digest of its full value, deleted keys included. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Finds a key by id, deleted keys included. */
  findById(id: string): Promise<ApiKeyRecord | null>;
  /** The account's keys that are not deleted, oldest first. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Slots held by the account's keys. */
  occupiedSlots(accountId: string): Promise<string[]>;
  /** Frees the slots of the account's keys that have expired by `now`; how many were freed. */
  releaseExpiredSlots(accountId: string, now: Date): Promise<number>;
  /**
   * Applies `changes` and sets (string) or frees (null) the slot, only if the key is not deleted and
   * still at `revision`.
   */
  update(
    id: string,
    revision: number,
    changes: Partial<KeySettings>,
    slot: string | null,
    now: Date,
  ): Promise<ApiKeyRecord | typeof SLOT_TAKEN | typeof STALE_REVISION>;
  /** Soft-deletes a key and frees its slot; null when there is no such key or it is deleted. */
  markDeleted(id: string, now: Date): Promise<ApiKeyRecord | null>;
}

/** A new key id: `key_` and 24 hex characters of randomness. */
export function newKeyId(): string {
  return `key_${randomBytes(12).toString('hex')}`;
}
