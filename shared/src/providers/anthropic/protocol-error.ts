import type { z } from 'zod';
import { UpstreamProtocolError } from '../chat-types.ts';

/** Parses an upstream value against its documented schema, or throws `UpstreamProtocolError` naming the first mismatch. */
export function parseDocumented<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
  // Only the path and zod's wording: the body itself may hold user content and stays out of logs.
  throw new UpstreamProtocolError(
    `Anthropic ${what} does not have the documented shape${where}: ${issue?.message ?? 'invalid'}`,
  );
}
