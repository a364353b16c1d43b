import { describe, expect, it } from 'vitest';
import { isExpired, keyState } from '../../../../shared/src/accounts/key-state.ts';

const now = new Date('2030-01-01T00:00:00Z');
const past = new Date(now.getTime() - 1);
const future = new Date(now.getTime() + 1);

describe('keyState', () => {
  it('derives the four states, expiry by the clock', () => {
    expect(keyState({ active: true, expiresAt: null, deleted: false }, now)).toBe('active');
    expect(keyState({ active: true, expiresAt: future, deleted: false }, now)).toBe('active');
    expect(keyState({ active: true, expiresAt: now, deleted: false }, now)).toBe('expired');
    expect(keyState({ active: true, expiresAt: past, deleted: false }, now)).toBe('expired');
    expect(keyState({ active: false, expiresAt: past, deleted: false }, now)).toBe('disabled');
    expect(keyState({ active: true, expiresAt: null, deleted: true }, now)).toBe('deleted');
    expect(keyState({ active: false, expiresAt: past, deleted: true }, now)).toBe('deleted');
  });

  it('expires at the instant itself', () => {
    expect(isExpired(null, now)).toBe(false);
    expect(isExpired(future, now)).toBe(false);
    expect(isExpired(now, now)).toBe(true);
  });
});
