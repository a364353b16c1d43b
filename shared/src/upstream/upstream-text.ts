/**
 * Text an upstream wrote (an error body's message, an in-stream error event, a failed render's
 * reason) made safe to show a client, for every provider: the held secrets and key shapes go first
 * (secret-scrubber.ts), then what could identify a key or an internal address, then whitespace is
 * collapsed and the length bounded. Markers: `[redacted]` for keys and account identifiers, `[url]`
 * for addresses, `[host]` for host names and IP addresses.
 */
import { REDACTED, scrubSecrets } from './secret-scrubber.ts';

/** Longest upstream text passed on; providers' own messages are one or two sentences. */
export const MAX_UPSTREAM_TEXT_LENGTH = 300;

const CLIENT_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // URLs of any scheme the provider might name (console links, internal endpoints).
  // A `[redacted]` left inside one by the secret pass goes with it.
  [/\b[a-z][a-z0-9+.-]*:\/\/(?:\[redacted\]|[^\s"'<>)[\]])+/gi, '[url]'],
  // Masked keys such as `xa***ab`, `sk-proj-****abcd` or `****abcd`.
  [/[\w-]*\*{3,}[\w*]*/g, REDACTED],
  // Account identifiers OpenAI names in rate-limit messages (`org-…`, `proj_…`).
  [/\b(?:org-|proj_)[A-Za-z0-9]{6,}\b/g, REDACTED],
  // Long opaque tokens (keys without a prefix, e.g. Mistral's): letters and digits mixed, 24+.
  [/\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{24,}\b/g, REDACTED],
  // IPv4 addresses, localhost and host names, with an optional port.
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '[host]'],
  [/\blocalhost(?::\d+)?\b/gi, '[host]'],
  [
    /\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|ai|dev|app|cloud|co|internal|local|lan|goog|google)\b(?::\d+)?/gi,
    '[host]',
  ],
];

/**
 * `text` without held secrets, key shapes, URLs, hosts or account identifiers, on one line, at most
 * `maxLength` characters (an ellipsis marks a cut); '' when nothing is left.
 */
export function sanitizeUpstreamText(text: string, maxLength = MAX_UPSTREAM_TEXT_LENGTH): string {
  let safe = scrubSecrets(text);
  for (const [pattern, replacement] of CLIENT_PATTERNS) safe = safe.replace(pattern, replacement);
  safe = safe.replace(/\s+/g, ' ').trim();
  return safe.length > maxLength ? `${safe.slice(0, maxLength - 1)}…` : safe;
}
