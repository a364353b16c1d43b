/** The states of an API key (spec, "API key state"). Only `active` keys authenticate. */
export type KeyState = 'active' | 'disabled' | 'expired' | 'deleted';

/** What the state of a key depends on; both a stored key and a cached `ResolvedKey` have it. */
export interface KeyStateFacts {
  readonly active: boolean;
  readonly expiresAt: Date | null;
  readonly deleted: boolean;
}

/** True once the expiry instant has come: a key expiring at `t` is refused from `t` on. */
export function isExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now.getTime();
}

/**
 * The state of a key at `now`. Expiry is decided by the clock on every call, never stored, so a
 * cached record expires on time. A deleted key is `deleted` whatever else holds; a disabled key
 * reads `disabled` even past its expiry: the operator's explicit decision is shown before the clock's.
 */
export function keyState(key: KeyStateFacts, now: Date): KeyState {
  if (key.deleted) return 'deleted';
  if (!key.active) return 'disabled';
  return isExpired(key.expiresAt, now) ? 'expired' : 'active';
}
