import { randomUUID } from 'node:crypto';
import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { Billing, TopUpResult } from '../../../shared/src/billing/billing.ts';

export interface TopUpAccountDeps {
  readonly billing: Pick<Billing, 'topUp'>;
  /** Accounts belong to the accounts module: a top-up only asks whether one exists. */
  readonly accountExists: (accountId: string) => Promise<boolean>;
}

export interface TopUpAccountInput {
  readonly accountId: string;
  readonly amountMicros: bigint;
  /** The payment or receipt number; empty (or only spaces) is no reference, stored as none. */
  readonly reference?: string;
  /**
   * The caller's idempotency key (the console always sends one); without one (the operator API
   * allows it), a fresh key: the top-up is never a replay.
   */
  readonly idempotencyKey?: string;
}

/**
 * Credits an account's wallet once per idempotency key (the operator API and the console's top-up);
 * 404 `account_not_found` for an account that does not exist.
 */
export async function topUpAccount(deps: TopUpAccountDeps, input: TopUpAccountInput): Promise<TopUpResult> {
  if (!(await deps.accountExists(input.accountId))) throw accountErrors.accountNotFound(input.accountId);
  return deps.billing.topUp({
    accountId: input.accountId,
    amountMicros: input.amountMicros,
    // Stored as none: the holder's ledger then shows the entry's id instead of a blank reference.
    reference: input.reference?.trim() === '' ? undefined : input.reference,
    idempotencyKey: input.idempotencyKey ?? randomUUID(),
  });
}
