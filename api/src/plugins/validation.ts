import { Ajv, type Options } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;

// `removeAdditional: false`: a schema that says `additionalProperties: false` rejects unknown fields, never drops them.
const common: Options = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false };

/**
 * Request validation with two Ajv instances: the query string and path parameters arrive as text
 * and are coerced to the schema's types (`?days=7`), while JSON bodies are validated exactly as
 * sent, so `"temperature": "0.5"` is an error, not a silent conversion (prices depend on fields).
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));
  const exact = addFormats(new Ajv({ ...common, coerceTypes: false }));
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? exact : coercing;
    return ajv.compile(schema as object);
  };
}
