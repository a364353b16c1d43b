import type { ErrorObject } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { describeValidationError } from './validation-message.ts';

/**
 * Field validation of the image and audio endpoints, answered as the spec says: 422 with
 * `{message, errors: {field: [messages]}}` rather than the common error format.
 */
export class FieldValidationError extends Error {
  readonly errors: Readonly<Record<string, readonly string[]>>;
  /** `message` replaces the one composed from the first error (for errors that are whole sentences). */
  constructor(errors: Record<string, string[]>, message?: string) {
    const first = Object.entries(errors)[0];
    super(
      message ??
        (first === undefined
          ? 'The request is invalid.'
          : `The ${first[0]} field ${first[1][0] ?? 'is invalid'}.`),
    );
    this.name = 'FieldValidationError';
    this.errors = errors;
  }

  toBody(): { message: string; errors: Readonly<Record<string, readonly string[]>> } {
    return { message: this.message, errors: this.errors };
  }
}

/** One field's error. */
export function fieldError(field: string, message: string): FieldValidationError {
  return new FieldValidationError({ [field]: [message] });
}

/**
 * For routes declared with `attachValidation: true`: turns the schema's verdict into a 422 after
 * admission (so a caller without a key learns nothing about its request).
 */
export function registerFieldValidation(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    const validation = request.validationError as (Error & { validation?: ErrorObject[] }) | undefined;
    const first = validation?.validation?.[0];
    if (validation === undefined || first === undefined) return;
    const params = first.params as { missingProperty?: string; additionalProperty?: string };
    const path = first.instancePath.split('/').filter(Boolean);
    const field = params.missingProperty ?? params.additionalProperty ?? path[0] ?? 'body';
    const rule = describeValidationError(first, 'body')
      .replace(/^Invalid body( field `[^`]*`)?: /, '')
      .replace(/\.$/, '');
    throw fieldError(field, rule);
  });
}
