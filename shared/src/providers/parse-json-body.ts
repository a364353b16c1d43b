import type { z } from 'zod';

/** A provider body read as JSON of the given shape; undefined when it is not JSON or not that shape. */
export function parseJsonAs<T>(schema: z.ZodType<T>, bodyText: string): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
