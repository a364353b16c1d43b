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
  readonly reference?: string;
  /** The operator's idempotency key; without one, a fresh key (the top-up is never a replay). */
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
    reference: input.reference,
    idempotencyKey: input.idempotencyKey ?? randomUUID(),
  });
}
