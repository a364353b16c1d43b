import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BulkRefusals, isServiceRefusal } from '../../../../api/src/plugins/bulk-refusals.ts';
import { registerErrorHandling } from '../../../../api/src/plugins/error-handler.ts';
import { errors } from '../../../../shared/src/errors/app-error.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

afterEach(() => {
  vi.useRealTimers();
});

const warnings = (lines: Record<string, unknown>[]) => lines.filter((line) => line.level === 40);

describe('isServiceRefusal', () => {
  it('takes 5xx and the admission refusals, not the per-key 429 nor what a request asks', () => {
    expect(isServiceRefusal(errors.storeUnavailable(5))).toBe(true);
    expect(isServiceRefusal(errors.internal('req_x'))).toBe(true);
    expect(isServiceRefusal(errors.invalidApiKey())).toBe(true);
    expect(isServiceRefusal(errors.insufficientQuota())).toBe(true);
    expect(isServiceRefusal(errors.spendLimitReached())).toBe(true);
    expect(isServiceRefusal(errors.rateLimitExceeded(3))).toBe(false);
    expect(isServiceRefusal(errors.invalidRequest('bad'))).toBe(false);
    expect(isServiceRefusal(errors.modelNotFound('x/y'))).toBe(false);
  });
});

describe('BulkRefusals', () => {
  const settings = { windowMs: 1_000, threshold: 3 };

  it('writes one warn line per class that reached the threshold in the window, with its count', () => {
    vi.useFakeTimers();
    const { logger, lines } = captureLogger('warn');
    const refusals = new BulkRefusals(logger as FastifyBaseLogger, settings);
    for (let i = 0; i < 5; i++) refusals.note(errors.storeUnavailable(5));
    refusals.note(errors.shuttingDown());
    for (let i = 0; i < 3; i++) refusals.note(errors.insufficientQuota());
    for (let i = 0; i < 50; i++) refusals.note(errors.rateLimitExceeded(1));
    expect(warnings(lines())).toEqual([]);
    vi.advanceTimersByTime(1_000);
    const written = warnings(lines());
    expect(written).toHaveLength(2);
    // The two 503s share a class (status and code); the window's first message shows which kind.
    expect(written[0]).toMatchObject({
      status: 503,
      code: 'upstream_error',
      count: 6,
      seconds: 1,
      example: expect.stringMatching(/temporarily unavailable/),
      msg: 'refused 6 requests within 1 s with 503 upstream_error',
    });
    expect(written[1]).toMatchObject({ status: 402, code: 'insufficient_quota', count: 3 });
  });

  it('counts each window from zero, and runs no timer while nothing is refused', () => {
    vi.useFakeTimers();
    const { logger, lines } = captureLogger('warn');
    const refusals = new BulkRefusals(logger as FastifyBaseLogger, settings);
    expect(vi.getTimerCount()).toBe(0);
    for (let i = 0; i < 2; i++) refusals.note(errors.invalidApiKey());
    vi.advanceTimersByTime(1_000);
    for (let i = 0; i < 2; i++) refusals.note(errors.invalidApiKey());
    vi.advanceTimersByTime(1_000);
    expect(warnings(lines())).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the error handler', () => {
  it('logs the service refusing in bulk at warn, and nothing for a key over its rate limit', async () => {
    const { logger, lines } = captureLogger('warn');
    const app = Fastify({
      loggerInstance: logger as FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
    });
    registerErrorHandling(app);
    app.get('/quota', async () => {
      throw errors.insufficientQuota();
    });
    app.get('/limited', async () => {
      throw errors.rateLimitExceeded(5);
    });
    for (let i = 0; i < 12; i++) {
      expect((await app.inject({ method: 'GET', url: '/quota' })).statusCode).toBe(402);
      expect((await app.inject({ method: 'GET', url: '/limited' })).statusCode).toBe(429);
    }
    // Closing ends the window at once (a stopping api still says what it refused).
    await app.close();
    expect(warnings(lines())).toEqual([
      expect.objectContaining({ status: 402, code: 'insufficient_quota', count: 12, seconds: 10 }),
    ]);
  });
});
