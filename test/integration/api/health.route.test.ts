import { afterAll, describe, expect, it } from 'vitest';
import { startRedisServer } from '../../../infra/local-services/redis-server.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
});

describe('health endpoints', () => {
  it('GET /healthz answers while the process is alive', async () => {
    const t = await buildTestApp();
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when Redis, the store and S3 answer', async () => {
    const t = await buildTestApp();
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { redis: 'ok', store: 'ok', s3: 'ok' } });
  });

  it('GET /readyz answers 503 naming a stopped Redis while the others are ok', async () => {
    const redis = await startRedisServer();
    const t = await buildTestApp({ env: { REDIS_URL: redis.url, READINESS_TIMEOUT_MS: '500' } });
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await redis.process.stop();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    const body = res.json<{ status: string; checks: Record<string, string> }>();
    expect(body.status).toBe('unavailable');
    expect(body.checks.redis).toBe('unavailable');
    expect(body.checks.store).toBe('ok');
    expect(body.checks.s3).toBe('ok');
  });

  it('GET /readyz answers 503 naming a stopped store and S3', async () => {
    const t = await buildTestApp({
      env: { READINESS_TIMEOUT_MS: '300' },
      readinessChecks: (real) =>
        real.map((check) =>
          check.name === 'redis'
            ? check
            : { name: check.name, check: () => Promise.reject(new Error(`${check.name} is stopped`)) },
        ),
    });
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'unavailable',
      checks: { redis: 'ok', store: 'unavailable', s3: 'unavailable' },
    });
    // Why, which may name internal addresses, goes to the log only.
    expect(res.body).not.toContain('stopped');
    const logged = t.logs().find((line) => line.msg === 'not ready');
    expect(logged).toMatchObject({ reasons: { store: 'store is stopped', s3: 's3 is stopped' } });
  });

  it('GET /readyz bounds a check that hangs', async () => {
    const t = await buildTestApp({
      env: { READINESS_TIMEOUT_MS: '200' },
      readinessChecks: (real) => [...real, { name: 'slow', check: () => new Promise<void>(() => undefined) }],
    });
    apps.push(t);
    const started = Date.now();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json<{ checks: Record<string, string> }>().checks.slow).toBe('unavailable');
    const logged = t.logs().find((line) => line.msg === 'not ready');
    expect(logged).toMatchObject({ reasons: { slow: 'no answer within 200 ms' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
