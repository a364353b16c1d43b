/**
 * Whether `error` is SQLite refusing a write for the unique constraint on `column` (`table.column`).
 * SQLite names the violated constraint only in the message (`UNIQUE constraint failed: t.c`).
 */
export function isUniqueViolation(error: unknown, column: string): boolean {
  return error instanceof Error && error.message === `UNIQUE constraint failed: ${column}`;
}
