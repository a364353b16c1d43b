import { randomBytes } from 'node:crypto';
import { parseAccountName, parseEmail } from '../../../../shared/src/accounts/account-input.ts';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import { composeMail, type MailLanguage } from '../../../../shared/src/mail/mail-templates.ts';
import type { Mailer } from '../../../../shared/src/mail/mailer.ts';
import { consoleErrors } from '../../console/console-errors.ts';
import type { PasswordHasher } from '../../console/password-hasher.ts';
import type { SignInLimiter } from '../../console/sign-in-limiter.ts';
import type { PendingSignUps } from '../../self-serve/pending-sign-ups.ts';
import { selfServeErrors } from '../../self-serve/self-serve-errors.ts';
import type { Outbox } from '../../self-serve/self-serve-services.ts';
import { checkPasswordRules } from '../check-password-rules.ts';

export interface SignUpDeps {
  readonly signupMode: 'open' | 'invite';
  readonly accounts: Pick<AccountsRepository, 'findByEmail'>;
  readonly hasher: Pick<PasswordHasher, 'hash'>;
  readonly limiter: Pick<SignInLimiter, 'attempt'>;
  readonly signUps: Pick<PendingSignUps, 'put'>;
  readonly mailer: Mailer;
  readonly outbox: Outbox;
}

export interface SignUpInput {
  readonly email: string;
  readonly password: string;
  readonly name?: string | null;
  readonly ip: string;
  readonly language: MailLanguage;
  /** Where the console is reached (`PUBLIC_BASE_URL`, else the request's origin). */
  readonly origin: string;
}

/**
 * Starts a sign-up. Answers the same (nothing; the route says 202) whether or not the email has an
 * account: a free address gets a verification link (one-time, 24 h; the account is made when it is
 * used), a taken one a mail saying someone tried. The password is hashed either way, and mails are
 * sent after the answer, so neither the answer nor its time tells the two apart. 400 for a malformed
 * email, a short password or a bad name; 403 `sign_up_closed` with SIGNUP_MODE=invite; 429 past the
 * limits per IP and per email (those of sign-in).
 */
export async function signUp(deps: SignUpDeps, input: SignUpInput): Promise<void> {
  if (deps.signupMode !== 'open') throw selfServeErrors.signUpClosed();
  const email = parseEmail(input.email);
  const name = parseAccountName(input.name);
  checkPasswordRules(input.password);
  const attempt = await deps.limiter.attempt(email, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const passwordHash = await deps.hasher.hash(input.password);
  const existing = await deps.accounts.findByEmail(email);
  if (existing !== null) {
    deps.outbox.post(() => deps.mailer.send(composeMail('sign-up-taken', input.language, email)));
    return;
  }
  const token = randomBytes(32).toString('base64url');
  await deps.signUps.put(token, { email, name, passwordHash });
  const link = `${input.origin}/console/verify#token=${token}`;
  deps.outbox.post(() => deps.mailer.send(composeMail('sign-up-verify', input.language, email, link)));
}
