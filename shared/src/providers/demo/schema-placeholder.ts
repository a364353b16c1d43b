/**
 * A deterministic JSON value that satisfies the shape of a JSON Schema's required parts, for the
 * demo provider's tool-call arguments and json_schema answers. Required keys only, with
 * placeholder values of the declared type; `enum`/`const` take their first allowed value.
 */

const MAX_DEPTH = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first declared type (a type list prefers a non-null type). */
function declaredType(schema: Record<string, unknown>): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const named = type.filter((entry): entry is string => typeof entry === 'string');
    return named.find((entry) => entry !== 'null') ?? named[0];
  }
  if (isRecord(schema.properties)) return 'object';
  return undefined;
}

/** A placeholder value for `schema`. */
export function placeholderFor(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(branches) && branches.length > 0) return placeholderFor(branches[0], depth + 1);
  switch (declaredType(schema)) {
    case 'string':
      return 'example';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return objectPlaceholder(schema, depth);
    default:
      return null;
  }
}

function objectPlaceholder(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
  const value: Record<string, unknown> = {};
  for (const key of required) value[key] = placeholderFor(properties[key], depth + 1);
  return value;
}
