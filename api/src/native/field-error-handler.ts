import type { FastifyInstance } from 'fastify';
import { NativeFieldError } from '../../../shared/src/native/field-bounds.ts';
import type { FieldErrorBody } from '../../../shared/src/native/field-error-answers.ts';

/**
 * Answers a field out of the gateway's bounds (`NativeFieldError`) on the routes of `scope` with
 * 400 in their provider's format (`body`), as the provider answers a value it refuses; any other
 * error goes on to the enclosing handlers (admission's, then the app's). Such a request was
 * counted by admission (its plan refused it, so nothing was held) before its handler threw.
 */
export function answerFieldErrors(scope: FastifyInstance, body: FieldErrorBody): void {
  scope.setErrorHandler((error, request, reply) => {
    if (!(error instanceof NativeFieldError)) throw error;
    request.log.info({ status: 400, field: error.field, problem: error.problem }, error.message);
    return reply.code(400).send(body(error, request.id));
  });
}
