import { randomBytes } from 'node:crypto';
import { accountErrors } from '../../../shared/src/accounts/account-errors.ts';
import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type {
  CredentialsRepository,
  InvitationPurpose,
} from '../../../shared/src/accounts/credentials.repository.ts';
import { digestOf } from '../console/session-store.ts';

/** docs/console.md: an invitation works 7 days, a reset 1 hour. */
export const LINK_LIFETIME_MS: Readonly<Record<InvitationPurpose, number>> = {
  invite: 7 * 24 * 3600 * 1000,
  reset: 3600 * 1000,
};

export interface CreateInvitationDeps {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly credentials: Pick<CredentialsRepository, 'createInvitation'>;
  readonly clock: () => Date;
}

export interface CreateInvitationInput {
  readonly accountId: string;
  readonly purpose: InvitationPurpose;
  /** Where the console is reached: `PUBLIC_BASE_URL`, else the request's own origin. */
  readonly origin: string;
}

/** A one-time link, as the operator gets it (the token exists nowhere else). */
export interface Invitation {
  readonly url: string;
  readonly expiresAt: Date;
  readonly purpose: InvitationPurpose;
}

/**
 * Makes a one-time link that sets the account's password: `<origin>/console/invite#token=…` (in the
 * fragment, which browsers never send to a server nor in a Referer). The token is 32 random bytes;
 * only its SHA-256 is stored. The account's earlier links stop working. 404 `account_not_found`.
 */
export async function createInvitation(
  deps: CreateInvitationDeps,
  input: CreateInvitationInput,
): Promise<Invitation> {
  const account = await deps.accounts.findById(input.accountId);
  if (account === null) throw accountErrors.accountNotFound(input.accountId);
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS[input.purpose]);
  await deps.credentials.createInvitation(
    { tokenHash: digestOf(token), accountId: account.id, purpose: input.purpose, expiresAt },
    now,
  );
  return { url: `${input.origin}/console/invite#token=${token}`, expiresAt, purpose: input.purpose };
}
