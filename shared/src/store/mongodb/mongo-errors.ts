/**
 * True when `error` is MongoDB's duplicate-key error (E11000) raised by the index named `index`.
 * Real MongoDB sets `keyPattern`; jongodb only names the index in the message, which both do.
 */
export function isDuplicateKeyOn(error: unknown, index: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 11000 && typeof message === 'string' && message.includes(`index: ${index} `);
}

/** MongoDB's `NamespaceNotFound` (26): the collection does not exist (yet). */
export const isNamespaceNotFound = (error: unknown): boolean => codeOf(error) === 26;

/** MongoDB's `IndexNotFound` (27): no index of that name (another replica may have dropped it). */
export const isIndexNotFound = (error: unknown): boolean => codeOf(error) === 27;

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}
