import { AppError } from '../errors/app-error.ts';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from './key-slots.ts';

/** The errors of account and key management (operator API, later the console), spelled once. */
export const accountErrors = {
  // The email is not echoed: error messages are logged, and an address is personal data.
  accountExists: () =>
    new AppError(
      409,
      'invalid_request_error',
      'account_exists',
      'An account with this email already exists.',
    ),
  accountNotFound: (id: string) =>
    new AppError(404, 'invalid_request_error', 'account_not_found', `No account has the id \`${id}\`.`),
  keyNotFound: (id: string) =>
    new AppError(404, 'invalid_request_error', 'key_not_found', `No API key has the id \`${id}\`.`),
  keyLimitReached: () =>
    new AppError(
      409,
      'invalid_request_error',
      'key_limit_reached',
      `The account already has ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; disable or delete one first.`,
    ),
} as const;
