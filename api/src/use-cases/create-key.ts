import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import { generateApiKey } from '../../../shared/src/accounts/api-key-format.ts';
import type {
  ApiKeyRecord,
  ApiKeysRepository,
  NewApiKey,
} from '../../../shared/src/accounts/api-keys.repository.ts';
import type { KeyCache } from '../../../shared/src/accounts/key-cache.ts';
import {
  DEFAULT_KEY_SETTINGS,
  type KeySettingsInput,
  parseKeySettings,
} from '../../../shared/src/accounts/key-settings.ts';
import { countsTowardLimit, LIMIT_REACHED, withFreeSlot } from '../../../shared/src/accounts/key-slots.ts';

export interface CreateKeyDeps {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly keys: Pick<ApiKeysRepository, 'insert' | 'occupiedSlots' | 'releaseExpiredSlots'>;
  readonly keyCache: Pick<KeyCache, 'invalidateKey'>;
  readonly clock: () => Date;
}

export interface CreateKeyInput {
  readonly accountId: string;
  readonly settings: KeySettingsInput;
}

/** A key just created: the only moment its full value exists outside the client. */
export interface CreatedKey {
  readonly key: string;
  readonly record: ApiKeyRecord;
}

/**
 * Creates a key for an account with the given settings (defaults for the rest). 400 on a bad
 * setting, 404 `account_not_found`, 409 `key_limit_reached` when the key would be the account's
 * 26th active one.
 */
export async function createKey(deps: CreateKeyDeps, input: CreateKeyInput): Promise<CreatedKey> {
  const settings = { ...DEFAULT_KEY_SETTINGS, ...parseKeySettings(input.settings) };
  const account = await deps.accounts.findById(input.accountId);
  if (account === null) throw accountErrors.accountNotFound(input.accountId);
  const generated = generateApiKey();
  const key: NewApiKey = { accountId: account.id, hash: generated.hash, last4: generated.last4, ...settings };
  const now = deps.clock();
  const record = countsTowardLimit(settings, now)
    ? await withFreeSlot(deps.keys, account.id, now, (slot) => deps.keys.insert(key, slot, now))
    : await deps.keys.insert(key, null, now);
  if (record === LIMIT_REACHED) throw accountErrors.keyLimitReached();
  if (typeof record === 'string') throw new Error(`unexpected ${record} inserting a key without a slot`);
  // A replica may have remembered this hash as unknown (a client trying the key too early).
  await deps.keyCache.invalidateKey(record.hash);
  return { key: generated.key, record };
}
