import type { FastifyReply, FastifyRequest } from 'fastify';

type PreValidation = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * The top-level fields a body schema lets be `null` (`type` lists `'null'`, or `enum` holds
 * `null`): the ones the convention's SDKs type `T | null`, which the route drops when null
 * (`dropNullFieldsHook`), so the schema that documents them in the API reference also names them.
 */
export function nullableFields(schema: { readonly properties: object }): readonly string[] {
  return Object.entries(schema.properties)
    .filter(([, field]) => {
      const { type, enum: values } = field as {
        type?: string | readonly string[];
        enum?: readonly unknown[];
      };
      return (Array.isArray(type) && type.includes('null')) || values?.includes(null) === true;
    })
    .map(([name]) => name);
}

/**
 * A `preValidation` hook that drops the given top-level fields of a JSON body when they are sent
 * as `null`: for fields the convention lets be null, null means "not given" (its SDKs send it for
 * an explicit `None`/`null`), so the request is validated, defaulted and answered as without them.
 */
export function dropNullFieldsHook(fields: readonly string[]): PreValidation {
  return (request, _reply, done) => {
    const body = request.body as Record<string, unknown> | null | undefined;
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      for (const field of fields) if (body[field] === null) delete body[field];
    done();
  };
}

/**
 * For the routes whose `model` is required (embeddings, videos; chat drops it with its other
 * nullable fields): `"model": null` has no model, so it answers 400 `model_required` like a body
 * without the field, not a type error.
 */
export const dropNullModel: PreValidation = dropNullFieldsHook(['model']);
