import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { CredentialsRepository } from '../../../../shared/src/accounts/credentials.repository.ts';
import { consoleErrors } from '../../console/console-errors.ts';
import type { PasswordHasher } from '../../console/password-hasher.ts';
import type { SessionStore } from '../../console/session-store.ts';
import type { SignInLimiter } from '../../console/sign-in-limiter.ts';
import type { PendingSignUps } from '../../self-serve/pending-sign-ups.ts';
import { selfServeErrors } from '../../self-serve/self-serve-errors.ts';
import type { OpenedSession } from '../sign-in.ts';

export interface VerifySignUpDeps {
  readonly accounts: Pick<AccountsRepository, 'create'>;
  readonly credentials: Pick<CredentialsRepository, 'setPassword'>;
  readonly signUps: PendingSignUps;
  readonly sessions: Pick<SessionStore, 'create'>;
  readonly limiter: Pick<SignInLimiter, 'attempt' | 'succeeded'>;
  readonly clock: () => Date;
  /** Hashes a password given with the link (`POST /password/set` with a sign-up link). */
  readonly hasher?: Pick<PasswordHasher, 'hash'>;
}

/**
 * Uses a verification link: the account is made (active, with a zero wallet) with the password
 * chosen at sign-up, and a session opened. The link works once (of concurrent uses one wins); 400
 * `invitation_invalid` for a link unknown, used or expired, or whose address got an account
 * meanwhile. Attempts count against the IP's sign-in limit (429), so guessing tokens costs as much.
 */
export async function verifySignUp(
  deps: VerifySignUpDeps,
  input: { token: string; ip: string; password?: string },
): Promise<OpenedSession> {
  const attempt = await deps.limiter.attempt(null, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const taken = await deps.signUps.take(input.token);
  if (taken === null) throw selfServeErrors.signUpLinkInvalid();
  // A password sent with the link replaces the one chosen at sign-up.
  const pending =
    input.password === undefined || deps.hasher === undefined
      ? taken
      : { ...taken, passwordHash: await deps.hasher.hash(input.password) };
  let account: Awaited<ReturnType<AccountsRepository['create']>>;
  try {
    account = await deps.accounts.create({ email: pending.email, name: pending.name }, deps.clock());
    if (account !== 'email_taken')
      await deps.credentials.setPassword(account.id, pending.passwordHash, deps.clock());
  } catch (err) {
    // A store fault: the link stays usable, so the holder can try again.
    await deps.signUps.restore(input.token, pending);
    throw err;
  }
  if (account === 'email_taken') throw selfServeErrors.signUpLinkInvalid();
  await deps.limiter.succeeded(null, input.ip);
  const opened = await deps.sessions.create({
    role: 'holder',
    accountId: account.id,
    operatorTokenDigest: null,
  });
  return { ...opened, account };
}
