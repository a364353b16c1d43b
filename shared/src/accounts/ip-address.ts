import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The canonical form of one exact IP address, or undefined when `value` is not one (CIDR ranges,
 * zone ids, host names, surrounding spaces and anything else are refused, never repaired).
 * IPv4 stays dotted decimal; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes the IPv4 address, so an
 * allow-list entry matches however a dual-stack socket reports the client; other IPv6 addresses
 * take the compressed lower-case form of RFC 5952.
 */
export function normalizeIpAddress(value: string): string | undefined {
  if (isIPv4(value)) return value;
  if (!isIPv6(value) || value.includes('%')) return undefined;
  const canonical = canonicalIpv6(value);
  if (canonical === undefined) return undefined;
  const mapped = MAPPED_IPV4.exec(canonical);
  return mapped === null ? canonical : ipv4FromGroups(mapped[1] ?? '0', mapped[2] ?? '0');
}

// The WHATWG URL parser serializes IPv6 hosts exactly as RFC 5952 asks: lower case, leading zeros
// dropped, the longest run of two or more zero groups compressed (the first one on a tie).
function canonicalIpv6(value: string): string | undefined {
  try {
    return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function ipv4FromGroups(high: string, low: string): string {
  const h = Number.parseInt(high, 16);
  const l = Number.parseInt(low, 16);
  return [h >> 8, h & 0xff, l >> 8, l & 0xff].join('.');
}
