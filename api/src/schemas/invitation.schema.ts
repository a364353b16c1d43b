import { INVITATION_PURPOSES } from '../../../shared/src/accounts/credentials.repository.ts';
import type { Invitation } from '../use-cases/create-invitation.ts';

/** A one-time console link as the operator gets it (operator API and console alike). */
export const invitationSchema = {
  type: 'object',
  description:
    'A one-time console link that sets the account’s password (`invite`: 7 days, `reset`: 1 hour).',
  additionalProperties: false,
  required: ['url', 'expires_at', 'purpose'],
  properties: {
    url: { type: 'string' },
    expires_at: { type: 'string', format: 'date-time' },
    purpose: { type: 'string', enum: INVITATION_PURPOSES },
  },
} as const;

/**
 * The body asking for a link: `{purpose?}`, `invite` (7 days) by default, or `reset` (1 hour); a
 * request without a body asks for an invitation.
 */
export const invitationBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { purpose: { type: 'string', enum: INVITATION_PURPOSES } },
} as const;

export function toInvitationView(invitation: Invitation) {
  return {
    url: invitation.url,
    expires_at: invitation.expiresAt.toISOString(),
    purpose: invitation.purpose,
  };
}
