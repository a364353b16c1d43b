import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors } from '../../../shared/src/errors/app-error.ts';
import { BulkRefusals } from './bulk-refusals.ts';
import { FieldValidationError } from './field-validation.ts';
import { lingerWhenClosed } from './lingering-close.ts';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from './store-outage.ts';
import { describeValidationError } from './validation-message.ts';

/**
 * The one place where anything thrown becomes an HTTP answer in the spec's error format.
 * AppErrors answer as they are; Fastify's own client errors (bad JSON, wrong content type, body too
 * large, schema validation) become 4xx; a store that cannot be reached (store-outage.ts) 503 with
 * `Retry-After`; anything else is a bug: logged with its cause, answered with a generic 500
 * carrying the request id. What never reaches Fastify (Node's parser errors) is answered in the
 * same format by client-errors.ts. The service's own refusals are also summed by class, and logged
 * at `warn` when they come in bulk (bulk-refusals.ts).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const refusals = new BulkRefusals(app.log);
  app.addHook('onClose', (_instance, done) => {
    refusals.flush();
    done();
  });
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof FieldValidationError) {
      request.log.info({ status: 422, errors: error.errors }, error.message);
      closeIfBodyUnread(request, reply);
      return reply.code(422).send(error.toBody());
    }
    const appError = toAppError(error, request);
    logFailure(request, error, appError);
    refusals.note(appError);
    closeIfBodyUnread(request, reply);
    const answer = stopAware(appError, request, reply);
    // The request log's `error_code` (docs/request-log.md).
    const draft = request.requestCapture?.draft;
    if (draft !== undefined) draft.errorCode = String(answer.code);
    return reply.code(answer.status).headers(answer.headers).send(answer.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const appError = errors.routeNotFound(request.method, request.url.split('?')[0] ?? '');
    closeIfBodyUnread(request, reply);
    return reply.code(appError.status).send(appError.toBody());
  });
}

/**
 * A call cancelled while its client is still there was cancelled by the api's stop (answer-signal.ts):
 * answered as the restart it is (503, `Retry-After`), not as the client's leaving (499).
 */
function stopAware(appError: AppError, request: FastifyRequest, reply: FastifyReply): AppError {
  const cancelled = appError.code === 'client_closed_request';
  return cancelled && request.server.stopping.aborted && !reply.raw.destroyed
    ? errors.shuttingDown()
    : appError;
}

/**
 * An error answered before the request body fully arrived (a refused key, an oversized body)
 * closes the connection: Node would otherwise keep reading, and waiting for, the rest of a body
 * nobody needs. It closes lingering (lingering-close.ts), so the client, still sending, reads
 * the answer instead of a reset.
 */
function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete !== false) return;
  reply.header('connection', 'close');
  lingerWhenClosed(request.raw.socket);
}

/** 5xx with their cause (a converted 503 is a store outage); a 503 the service chose, and 4xx, in brief. */
function logFailure(request: FastifyRequest, error: unknown, appError: AppError): void {
  const converted = appError !== error;
  if (appError.status >= 500 && (converted || appError.status !== 503)) {
    const storeDown = converted && appError.status === 503;
    request.log.error({ err: error }, storeDown ? 'store unavailable' : 'request failed');
  } else {
    request.log.info({ code: appError.code, status: appError.status }, appError.message);
  }
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
  logFailure(request, error, appError);
  // No route, so no route hooks: the request id is set here.
  reply.header('x-request-id', request.id);
  void reply.code(appError.status).headers(appError.headers).send(appError.toBody());
}

function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return errors.invalidRequest(validationMessage(error));
  // Redis, the durable store or S3 cannot be reached: retryable, not a bug.
  if (isStoreUnavailable(error)) return errors.storeUnavailable(STORE_RETRY_AFTER_SECONDS);
  // The rest of an oversized body is not read: the connection closes instead of draining it.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new AppError(
      413,
      'invalid_request_error',
      'invalid_request_error',
      'The request body is too large.',
      {
        headers: { connection: 'close' },
      },
    );
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
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'A segment of the request URL is too long.';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The request body does not match its Content-Length.';
    default:
      return error.message;
  }
}
