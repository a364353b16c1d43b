import { randomUUID } from 'node:crypto';
import type { AccountRecord, AccountsRepository } from '../../../shared/src/accounts/accounts.repository.ts';
import type { CredentialsRepository } from '../../../shared/src/accounts/credentials.repository.ts';
import { consoleErrors } from '../console/console-errors.ts';
import type { PasswordHasher } from '../console/password-hasher.ts';
import type { ConsoleSession, SessionStore } from '../console/session-store.ts';
import type { SignInLimiter } from '../console/sign-in-limiter.ts';

export interface SignInDeps {
  readonly accounts: Pick<AccountsRepository, 'findByEmail'>;
  readonly credentials: Pick<CredentialsRepository, 'passwordOf'>;
  readonly hasher: PasswordHasher;
  readonly limiter: SignInLimiter;
  readonly sessions: Pick<SessionStore, 'create'>;
}

export interface SignInInput {
  readonly email: string;
  readonly password: string;
  /** The client's address (the per-IP limit). */
  readonly ip: string;
}

/** A session just opened: the token goes into the cookie, never into a body. */
export interface OpenedSession {
  readonly token: string;
  readonly session: ConsoleSession;
  readonly account: AccountRecord;
}

/**
 * Signs an account holder in. Every failure (unknown email, an account without a password yet, a
 * wrong password) costs one hash and answers the same 401 `invalid_credentials`, so neither the
 * answer nor its time tells whether the email has an account. 429 past the attempt limits (checked
 * before any hash); 403 `account_inactive` for a deactivated account, only with the right password.
 */
export async function signIn(deps: SignInDeps, input: SignInInput): Promise<OpenedSession> {
  const email = input.email.toLowerCase();
  const attempt = await deps.limiter.attempt(email, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const account = await deps.accounts.findByEmail(email);
  const stored = account === null ? null : await deps.credentials.passwordOf(account.id);
  // Without a stored hash, a decoy one is checked, so that this path hashes exactly as the other.
  const matches = await deps.hasher.verify(input.password, stored ?? (await decoyHashOf(deps.hasher)));
  if (account === null || stored === null || !matches) throw consoleErrors.invalidCredentials();
  if (account.status !== 'active') throw consoleErrors.accountInactive();
  await deps.limiter.succeeded(email, input.ip);
  const opened = await deps.sessions.create({
    role: 'holder',
    accountId: account.id,
    operatorTokenDigest: null,
  });
  return { ...opened, account };
}

const decoys = new WeakMap<PasswordHasher, Promise<string>>();

/** A hash of a random password, made once per hasher (so with its current cost). */
export function decoyHashOf(hasher: PasswordHasher): Promise<string> {
  let decoy = decoys.get(hasher);
  if (decoy === undefined) {
    decoy = hasher.hash(randomUUID());
    decoys.set(hasher, decoy);
  }
  return decoy;
}
