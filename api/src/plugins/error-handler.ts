import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import { FieldValidationError } from './field-validation.ts';
import { describeValidationError } from './validation-message.ts';

/**
 * The one place where anything thrown becomes an HTTP answer in the spec's error format.
 * AppErrors answer as they are; Fastify's own client errors (bad JSON, wrong content type, body too
 * large, schema validation) become 4xx; anything else is a bug: logged with its cause, answered
 * with a generic 500 carrying the request id.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof FieldValidationError) {
      request.log.info({ status: 422, errors: error.errors }, error.message);
      return reply.code(422).send(error.toBody());
    }
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code, status: appError.status }, appError.message);
    return reply.code(appError.status).headers(appError.headers).send(appError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const appError = errors.routeNotFound(request.method, request.url.split('?')[0] ?? '');
    return reply.code(appError.status).send(appError.toBody());
  });
}

/**
 * For errors Fastify raises before routing (a malformed URL, a bad content-type header), which
 * would otherwise bypass `setErrorHandler`. Passed as the `frameworkErrors` server option.
 */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const appError = toAppError(error, request);
  void reply.code(appError.status).headers(appError.headers).send(appError.toBody());
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return errors.invalidRequest(validationMessage(error));
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return errors.payloadTooLarge('The request body is too large.');
  // The spec answers a body the service cannot read with 400, whatever the reason.
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errors.invalidRequest(clientMessage(error));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new AppError(status, 'invalid_request_error', 'invalid_request_error', clientMessage(error));
  }
  return errors.internal(request.id);
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (first === undefined) return error.message;
  const part = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request');
  return describeValidationError(first as ErrorObject, part);
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type: send application/json (multipart/form-data for transcriptions).';
    case 'FST_ERR_BAD_URL':
      return 'The request URL is malformed.';
    default:
      return error.message;
  }
}
