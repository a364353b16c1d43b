import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../../../api/src/plugins/error-handler.ts';
import { generateRequestId, registerRequestContext } from '../../../../api/src/plugins/request-context.ts';
import { AppError, errors } from '../../../../shared/src/errors/app-error.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

const capture = captureLogger();
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify({
    loggerInstance: capture.logger as FastifyBaseLogger,
    genReqId: generateRequestId,
    bodyLimit: 1024,
    logController: new LogController({ disableRequestLogging: true }),
  });
  registerErrorHandling(app);
  registerRequestContext(app);
  app.post(
    '/echo',
    {
      schema: {
        body: {
          type: 'object',
          required: ['model'],
          properties: { model: { type: 'string' }, n: { type: 'integer', minimum: 1 } },
        },
      },
    },
    async (request) => request.body,
  );
  app.get('/rate-limited', async () => {
    throw new AppError(429, 'rate_limit_exceeded', 'rate_limit_exceeded', 'Slow down.', {
      headers: { 'retry-after': '7' },
    });
  });
  app.get('/model', async () => {
    throw errors.modelNotFound('nope/nothing');
  });
  app.get('/bug', async () => {
    throw new Error('database password is hunter2');
  });
  await app.ready();
});

afterAll(() => app.close());

function errorOf(body: string) {
  return (JSON.parse(body) as { error: Record<string, unknown> }).error;
}

describe('error handling', () => {
  it('answers an unknown route with 404 in the spec format', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/nothing-here?key=hk-secret' });
    expect(res.statusCode).toBe(404);
    expect(errorOf(res.body)).toEqual({
      message: 'Unknown route: GET /v1/nothing-here',
      type: 'invalid_request_error',
      code: 'invalid_request_error',
      param: null,
    });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-z]{9}[\w-]{16}$/);
  });

  it('answers an AppError with its status, type, code and headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/rate-limited' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(errorOf(res.body)).toMatchObject({ type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' });
    const model = await app.inject({ method: 'GET', url: '/model' });
    expect(model.statusCode).toBe(404);
    expect(errorOf(model.body)).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found' });
  });

  it('answers malformed JSON with 400, not 500', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"model":',
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res.body)).toMatchObject({
      type: 'invalid_request_error',
      message: 'The request body is not valid JSON.',
    });
  });

  it('answers schema violations with 400 naming the field', async () => {
    const missing = await app.inject({ method: 'POST', url: '/echo', payload: { n: 1 } });
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing.body).message).toMatch(/`model`/);
    const bad = await app.inject({ method: 'POST', url: '/echo', payload: { model: 'x', n: 0 } });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad.body).message).toMatch(/`n`/);
  });

  it('answers an unsupported content type with 400 and a too large body with 413', async () => {
    const type = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    expect(type.statusCode).toBe(400);
    expect(errorOf(type.body).type).toBe('invalid_request_error');
    const large = await app.inject({ method: 'POST', url: '/echo', payload: { model: 'x'.repeat(2000) } });
    expect(large.statusCode).toBe(413);
    expect(errorOf(large.body).type).toBe('invalid_request_error');
  });

  it('answers a bug with a generic 500 carrying the request id, and logs the cause', async () => {
    const res = await app.inject({ method: 'GET', url: '/bug' });
    expect(res.statusCode).toBe(500);
    const error = errorOf(res.body);
    expect(error).toMatchObject({ type: 'server_error', code: 'internal_error' });
    expect(error.message).toContain(String(res.headers['x-request-id']));
    expect(res.body).not.toContain('hunter2');
    const logged = capture.lines().find((line) => line.msg === 'request failed');
    expect(JSON.stringify(logged)).toContain('hunter2');
  });

  it('never logs the query string, where a key may travel', async () => {
    await app.inject({ method: 'GET', url: '/v1/nothing-here?key=hk-very-secret' });
    const text = JSON.stringify(capture.lines());
    expect(text, text).not.toContain('hk-very-secret');
  });
});
