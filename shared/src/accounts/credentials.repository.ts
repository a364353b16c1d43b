/**
 * What lets an account holder into the web console: the password hash of an account, and the
 * one-time links (invitations and resets) that set it (docs/console.md, "Sessions"). SQLite and
 * MongoDB implement it; the rules (hashing, token generation, lifetimes) live above it.
 */

/** `invite`: the account's first password (7 days); `reset`: a forgotten one (1 hour). */
export type InvitationPurpose = 'invite' | 'reset';

export const INVITATION_PURPOSES: readonly InvitationPurpose[] = ['invite', 'reset'];

/** A one-time link as stored: the SHA-256 of its token, never the token. */
export interface NewInvitation {
  readonly tokenHash: string;
  readonly accountId: string;
  readonly purpose: InvitationPurpose;
  readonly expiresAt: Date;
}

/** Whose link was used, and for what. */
export interface ConsumedInvitation {
  readonly accountId: string;
  readonly purpose: InvitationPurpose;
}

export interface CredentialsRepository {
  /** Sets (or replaces) the account's password hash. The caller checks that the account exists. */
  setPassword(accountId: string, passwordHash: string, now: Date): Promise<void>;
  /** The account's password hash; null when it has none yet (invited, not signed up). */
  passwordOf(accountId: string): Promise<string | null>;
  /**
   * Stores a new link of the account; its earlier links stop working (at most one works at a time,
   * so a leaked older link is void once the operator makes another).
   */
  createInvitation(invitation: NewInvitation, now: Date): Promise<void>;
  /**
   * The account and purpose of a link that exists, was never used and has not expired at `now`;
   * null otherwise. Reads only: the link stays usable.
   */
  findInvitation(tokenHash: string, now: Date): Promise<ConsumedInvitation | null>;
  /**
   * Uses a link to set its account's password, as one write: the password is set and the link used
   * up together, or neither (a failure leaves the link usable and the old password in place, so the
   * holder can try again). Answers the account and purpose; null, writing nothing, when the link is
   * unknown, used or expired at `now`. Single use: of concurrent calls with one token, one wins.
   */
  setPasswordByInvitation(
    tokenHash: string,
    passwordHash: string,
    now: Date,
  ): Promise<ConsumedInvitation | null>;
}
