import type { AccountRecord } from '../../../shared/src/accounts/accounts.repository.ts';
import type { CredentialsRepository } from '../../../shared/src/accounts/credentials.repository.ts';
import { consoleErrors } from '../console/console-errors.ts';
import type { PasswordHasher } from '../console/password-hasher.ts';
import type { SessionStore } from '../console/session-store.ts';
import type { SignInLimiter } from '../console/sign-in-limiter.ts';
import { checkPasswordRules } from './check-password-rules.ts';
import { decoyHashOf } from './sign-in.ts';

export interface ChangePasswordDeps {
  readonly credentials: Pick<CredentialsRepository, 'passwordOf' | 'setPassword'>;
  readonly hasher: PasswordHasher;
  readonly limiter: SignInLimiter;
  readonly sessions: Pick<SessionStore, 'endAllOf'>;
  readonly clock: () => Date;
}

export interface ChangePasswordInput {
  readonly account: AccountRecord;
  /** The session asking, which stays open; every other session of the account ends. */
  readonly sessionToken: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  readonly ip: string;
}

/**
 * A signed-in holder changes the password. The current one is checked like a sign-in (the same
 * attempt limits, 429), so a stolen session cannot be used to guess it; a wrong one is a 403
 * `invalid_credentials` (the session itself is fine). 400 `password_too_short`.
 */
export async function changePassword(deps: ChangePasswordDeps, input: ChangePasswordInput): Promise<void> {
  checkPasswordRules(input.newPassword);
  const attempt = await deps.limiter.attempt(input.account.email, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const stored = await deps.credentials.passwordOf(input.account.id);
  const matches = await deps.hasher.verify(input.currentPassword, stored ?? (await decoyHashOf(deps.hasher)));
  if (stored === null || !matches) throw consoleErrors.wrongPassword();
  await deps.limiter.succeeded(input.account.email, input.ip);
  await deps.credentials.setPassword(
    input.account.id,
    await deps.hasher.hash(input.newPassword),
    deps.clock(),
  );
  await deps.sessions.endAllOf(input.account.id, input.sessionToken);
}
