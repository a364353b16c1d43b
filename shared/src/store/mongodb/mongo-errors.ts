/**
 * True when `error` is MongoDB's duplicate-key error (E11000) raised by the index named `index`.
 * Real MongoDB sets `keyPattern`; jongodb only names the index in the message, which both do.
 */
export function isDuplicateKeyOn(error: unknown, index: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 11000 && typeof message === 'string' && message.includes(`index: ${index} `);
}
