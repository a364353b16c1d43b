import { parseEmail } from '../../../../shared/src/accounts/account-input.ts';
import type { AccountsRepository } from '../../../../shared/src/accounts/accounts.repository.ts';
import type { CredentialsRepository } from '../../../../shared/src/accounts/credentials.repository.ts';
import { composeMail, type MailLanguage } from '../../../../shared/src/mail/mail-templates.ts';
import type { Mailer } from '../../../../shared/src/mail/mailer.ts';
import { consoleErrors } from '../../console/console-errors.ts';
import type { SignInLimiter } from '../../console/sign-in-limiter.ts';
import type { Outbox } from '../../self-serve/self-serve-services.ts';
import { createInvitation } from '../create-invitation.ts';

export interface ForgotPasswordDeps {
  readonly accounts: Pick<AccountsRepository, 'findByEmail' | 'findById'>;
  readonly credentials: Pick<CredentialsRepository, 'createInvitation'>;
  readonly limiter: Pick<SignInLimiter, 'attempt'>;
  readonly mailer: Mailer;
  readonly outbox: Outbox;
  readonly clock: () => Date;
}

/**
 * Mails a reset link (today's kind: `/console/reset#token=…`, 1 hour, once; set through
 * `POST /password/set`, which uses it up in the same write as the password) to an active account of
 * this email. Answers the same (202) whatever the email: nothing is mailed to an unknown or
 * deactivated one. 400 for a malformed email; 429 past the limits per IP and per email.
 */
export async function forgotPassword(
  deps: ForgotPasswordDeps,
  input: { email: string; ip: string; language: MailLanguage; origin: string },
): Promise<void> {
  const email = parseEmail(input.email);
  const attempt = await deps.limiter.attempt(email, input.ip);
  if (!attempt.allowed) throw consoleErrors.tooManyAttempts(attempt.retryAfterSeconds);
  const account = await deps.accounts.findByEmail(email);
  if (account === null || account.status !== 'active') return;
  const link = await createInvitation(deps, {
    accountId: account.id,
    purpose: 'reset',
    origin: input.origin,
  });
  const url = link.url.replace('/console/invite#', '/console/reset#');
  deps.outbox.post(() => deps.mailer.send(composeMail('password-reset', input.language, email, url)));
}
