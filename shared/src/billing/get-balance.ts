import type { BillingDeps } from './billing-deps.ts';

/** An account's wallet balance in µIRT, from the store; 0 for an account that has no wallet yet. */
export async function getBalance(deps: BillingDeps, accountId: string): Promise<bigint> {
  return (await deps.store.walletState(accountId)).balance;
}
