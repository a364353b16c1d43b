import { AppError } from '../../../shared/src/errors/app-error.ts';

/** The console's own errors (docs/console.md), in the API's envelope, each spelled once. */
export const consoleErrors = {
  /** Every failed sign-in, whatever failed (unknown email, no password yet, wrong password). */
  invalidCredentials: () =>
    new AppError(401, 'invalid_api_key', 'invalid_credentials', 'The email or the password is wrong.'),
  sessionRequired: () =>
    new AppError(401, 'invalid_api_key', 'session_required', 'Sign in to the console first.'),
  wrongPassword: () =>
    new AppError(403, 'permission_error', 'invalid_credentials', 'The current password is wrong.'),
  csrfTokenInvalid: () =>
    new AppError(
      403,
      'permission_error',
      'csrf_token_invalid',
      'Send the session’s X-CSRF-Token (or X-Requested-With: console before signing in).',
    ),
  accountInactive: () =>
    new AppError(
      403,
      'permission_error',
      'account_inactive',
      'This account is deactivated; ask the operator to activate it.',
    ),
  invitationInvalid: () =>
    new AppError(
      400,
      'invalid_request_error',
      'invitation_invalid',
      'This link is unknown, used or expired; ask the operator for a new one.',
    ),
  tooManyAttempts: (retryAfterSeconds: number) =>
    new AppError(
      429,
      'rate_limit_exceeded',
      'rate_limit_exceeded',
      `Too many sign-in attempts; retry after ${retryAfterSeconds} seconds.`,
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  passwordTooShort: (minLength: number) =>
    new AppError(
      400,
      'invalid_request_error',
      'password_too_short',
      `The password must have at least ${minLength} characters.`,
    ),
} as const;
