import type { AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type { CredentialsRepository } from '../../../shared/src/accounts/credentials.repository.ts';
import { consoleErrors } from '../console/console-errors.ts';
import type { PasswordHasher } from '../console/password-hasher.ts';
import { digestOf, type SessionStore } from '../console/session-store.ts';
import type { SignInLimiter } from '../console/sign-in-limiter.ts';
import { checkPasswordRules } from './check-password-rules.ts';
import type { OpenedSession } from './sign-in.ts';

export interface SetPasswordByLinkDeps {
  readonly accounts: Pick<AccountsRepository, 'findById'>;
  readonly credentials: Pick<CredentialsRepository, 'findInvitation' | 'setPasswordByInvitation'>;
  readonly hasher: Pick<PasswordHasher, 'hash'>;
  readonly sessions: Pick<SessionStore, 'create' | 'endAllOf'>;
  readonly limiter: SignInLimiter;
  readonly clock: () => Date;
}

/**
 * Completes an invitation or a reset: the password is set and the link's token used up in one write
 * of the store (a failure leaves the link usable, so the holder can try again), every earlier
 * session of the account ended (a reset follows a lost or leaked password), and a new one opened.
 * 400 `password_too_short` before the link is used (it stays usable); 400 `invitation_invalid` for
 * a link unknown, used or expired; 403 `account_inactive` (the password is set, no session opens).
 * Attempts count against the client IP's sign-in limit (429), so guessing tokens costs as much.
 */
export async function setPasswordByLink(
  deps: SetPasswordByLinkDeps,
  input: { token: string; password: string; ip: string },
): Promise<OpenedSession> {
  checkPasswordRules(input.password);
  const attempt = await deps.limiter.attempt(null, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const tokenHash = digestOf(input.token);
  // Looked up first, so a wrong token costs no hash; the write below checks the link again.
  const found = await deps.credentials.findInvitation(tokenHash, deps.clock());
  const account = found === null ? null : await deps.accounts.findById(found.accountId);
  if (account === null) throw consoleErrors.invitationInvalid();
  const passwordHash = await deps.hasher.hash(input.password);
  const used = await deps.credentials.setPasswordByInvitation(tokenHash, passwordHash, deps.clock());
  if (used === null) throw consoleErrors.invitationInvalid();
  await deps.limiter.succeeded(null, input.ip);
  await deps.sessions.endAllOf(account.id);
  if (account.status !== 'active') throw consoleErrors.accountInactive();
  const opened = await deps.sessions.create({
    role: 'holder',
    accountId: account.id,
    operatorTokenDigest: null,
  });
  return { ...opened, account };
}
