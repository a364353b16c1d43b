import { normalizeIpAddress } from '../../../shared/src/accounts/ip-address.ts';
import type { ResolvedKey } from '../../../shared/src/accounts/key-cache.ts';
import { keyState } from '../../../shared/src/accounts/key-state.ts';

/** Check 2: the key exists and is in state `active` (not disabled, expired or deleted), and so is its account. */
export function isKeyUsable(key: ResolvedKey | null, now: Date): key is ResolvedKey {
  return key?.accountActive === true && keyState(key, now) === 'active';
}

/** Check 3: no list means every address; otherwise the exact (normalized) address must be listed. */
export function isIpAllowed(key: ResolvedKey, ip: string): boolean {
  if (key.allowedIps.length === 0) return true;
  const normalized = normalizeIpAddress(ip);
  return normalized !== undefined && key.allowedIps.includes(normalized);
}

/** Check 7: no list means every model; a listed id must match the model's canonical id. */
export function isModelAllowed(key: ResolvedKey, canonicalModelId: string | undefined): boolean {
  if (key.allowedModels === null || canonicalModelId === undefined) return true;
  return key.allowedModels.includes(canonicalModelId);
}
