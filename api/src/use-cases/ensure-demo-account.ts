import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import { hashApiKey } from '../../../shared/src/accounts/api-key-format.ts';
import type { ApiKeysRepository } from '../../../shared/src/accounts/api-keys.repository.ts';
import { keyState } from '../../../shared/src/accounts/key-state.ts';
import type { Billing } from '../../../shared/src/billing/billing.ts';
import { type CreateKeyDeps, createKey } from './create-key.ts';

export interface EnsureDemoAccountDeps extends CreateKeyDeps {
  readonly accounts: Pick<AccountsRepository, 'findById' | 'findByEmail' | 'create'>;
  readonly keys: CreateKeyDeps['keys'] & Pick<ApiKeysRepository, 'findByHash'>;
  readonly billing: Pick<Billing, 'topUp'>;
}

export interface EnsureDemoAccountInput {
  readonly email: string;
  readonly creditMicros: bigint;
  /** The key this function returned last time, if the caller kept it. */
  readonly savedKey: string | undefined;
}

/**
 * The local stack's demo account, made once: found by email or opened, credited once (the top-up's
 * idempotency key is fixed), and given a key. A saved key that still works is returned again;
 * otherwise a new key is made (the old full key cannot be shown twice).
 */
export async function ensureDemoAccount(
  deps: EnsureDemoAccountDeps,
  input: EnsureDemoAccountInput,
): Promise<{ accountId: string; key: string; newKey: boolean }> {
  const found = await deps.accounts.findByEmail(input.email);
  const created = found ?? (await deps.accounts.create({ email: input.email, name: 'Demo' }, deps.clock()));
  const account = created === 'email_taken' ? await deps.accounts.findByEmail(input.email) : created;
  if (account === null) throw new Error(`the demo account ${input.email} vanished while it was being made`);
  await deps.billing.topUp({
    accountId: account.id,
    amountMicros: input.creditMicros,
    reference: 'demo credit',
    idempotencyKey: 'demo-credit',
  });
  if (input.savedKey !== undefined) {
    const record = await deps.keys.findByHash(hashApiKey(input.savedKey));
    const usable =
      record !== null &&
      keyState({ ...record, deleted: record.deletedAt !== null }, deps.clock()) === 'active';
    if (usable && record.accountId === account.id) {
      return { accountId: account.id, key: input.savedKey, newKey: false };
    }
  }
  const { key } = await createKey(deps, { accountId: account.id, settings: { name: 'demo' } });
  return { accountId: account.id, key, newKey: true };
}
