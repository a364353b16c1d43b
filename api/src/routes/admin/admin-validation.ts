import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { describeValidationError } from '../../plugins/validation-message.ts';

/*
 * Fastify's default Ajv coerces types ("60" becomes 60) and silently drops properties that
 * `additionalProperties: false` forbids. An operator's typo in a key setting must be an error
 * that names the field, never a quiet default or a converted value, so the admin plugins validate
 * with this strict instance instead (scoped to them by Fastify's encapsulation).
 */
const ajv = new Ajv({
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: false,
  allowUnionTypes: true,
});

/** A Fastify validator compiler that rejects, naming the field, instead of coercing or stripping. */
export const strictValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = ajv.compile(schema as object);
  const part = httpPart === 'querystring' ? 'query' : (httpPart ?? 'request');
  return (data: unknown) => {
    // A request may come without a body (Fastify then has null or undefined): validate it as `{}`,
    // so a POST whose fields are all optional works bare and a required field is named when missing.
    if (validate(httpPart === 'body' && (data === undefined || data === null) ? {} : data)) return true;
    const first = validate.errors?.[0];
    // A plain Error (not `validation`-tagged) keeps this message through the error handler.
    return {
      error: new Error(first === undefined ? `Invalid ${part}.` : describeValidationError(first, part)),
    };
  };
};
