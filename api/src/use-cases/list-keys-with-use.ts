import type { ApiKeyRecord } from '../../../shared/src/accounts/api-keys.repository.ts';
import { monthOf } from '../../../shared/src/billing/billing-time.ts';
import type { MoneyStore } from '../../../shared/src/billing/money-store.ts';
import { type ListKeysDeps, listKeys } from './list-keys.ts';

export interface ListKeysWithUseDeps extends ListKeysDeps {
  readonly money: Pick<MoneyStore, 'keySpendsOf'>;
  readonly timeZone: string;
  readonly clock: () => Date;
}

/** A key with what it spent this billing month and when it was last charged. */
export interface KeyWithUse {
  readonly key: ApiKeyRecord;
  readonly spentThisMonthMicros: bigint;
  readonly lastUsedAt: Date | null;
}

/**
 * The account's keys (not deleted, oldest first) with this month's spend and last use, both kept
 * by settlement (docs/money-core.md): reading them costs one store read, serving a request nothing.
 * 404 `account_not_found`.
 */
export async function listKeysWithUse(
  deps: ListKeysWithUseDeps,
  input: { accountId: string },
): Promise<KeyWithUse[]> {
  const keys = await listKeys(deps, input);
  const month = monthOf(deps.clock(), deps.timeZone);
  const spends = await deps.money.keySpendsOf(
    input.accountId,
    keys.map((key) => key.id),
    month,
  );
  return keys.map((key, index) => ({
    key,
    spentThisMonthMicros: spends[index]?.spentMicros ?? 0n,
    lastUsedAt: spends[index]?.lastUsedAt ?? null,
  }));
}
