import { errors } from '../errors/app-error.ts';
import type { AccountStatus } from './accounts.repository.ts';

/** Bounds of account fields an operator sets. */
export const ACCOUNT_LIMITS = { emailMaxLength: 254, nameMaxLength: 100 } as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const STATUSES: readonly AccountStatus[] = ['active', 'inactive'];

/** JSON schema fragments of account fields, shared by the route schemas. */
export const accountFieldSchemas = {
  email: { type: 'string', minLength: 3, maxLength: ACCOUNT_LIMITS.emailMaxLength, pattern: EMAIL.source },
  name: { type: ['string', 'null'], maxLength: ACCOUNT_LIMITS.nameMaxLength },
  status: { type: 'string', enum: STATUSES },
} as const;

/**
 * A valid email in the form it is stored and compared in: lower case, so `A@x.io` and `a@x.io`
 * are one account. Anything else, surrounding spaces included, is refused rather than repaired.
 */
export function parseEmail(value: unknown): string {
  if (typeof value !== 'string' || value.length > ACCOUNT_LIMITS.emailMaxLength || !EMAIL.test(value)) {
    throw errors.invalidRequest('Invalid account field `email`: must be an email address.');
  }
  return value.toLowerCase();
}

/** A valid account name (null or absent: none). */
export function parseAccountName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > ACCOUNT_LIMITS.nameMaxLength) {
    throw errors.invalidRequest(
      `Invalid account field \`name\`: must be a string of at most ${ACCOUNT_LIMITS.nameMaxLength} characters.`,
    );
  }
  return value;
}

/** A valid account status. */
export function parseAccountStatus(value: unknown): AccountStatus {
  if (!STATUSES.includes(value as AccountStatus)) {
    throw errors.invalidRequest('Invalid account field `status`: must be `active` or `inactive`.');
  }
  return value as AccountStatus;
}
