import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consoleStatic } from '../../../api/src/plugins/console-static.ts';

async function appServing(distDir: string): Promise<FastifyInstance> {
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: { code: 'not_found' } }));
  await app.register(consoleStatic, { distDir });
  await app.ready();
  return app;
}

describe('console static serving', () => {
  let dir: string;
  let app: FastifyInstance;
  let missing: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><div id="app"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    app = await appServing(dir);
    missing = await appServing(join(dir, 'nothing-here'));
  });

  afterAll(async () => {
    await app.close();
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('redirects / to /console/', async () => {
    const res = await app.inject('/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/console/');
  });

  it.each(['/console', '/console/', '/console/keys', '/console/operator/accounts/acc_1'])(
    'answers %s with index.html, uncached, under the CSP',
    async (url) => {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('<div id="app">');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(CONSOLE_CSP).toContain("connect-src 'self'");
      expect(CONSOLE_CSP).toContain("script-src 'self'");
      expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    },
  );

  it('serves hashed assets with a year of immutable cache', async () => {
    const res = await app.inject('/console/assets/index-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing asset 404, never the page', async () => {
    const res = await app.inject('/console/assets/gone-000.js');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<div id="app">');
  });

  it('leaves unknown /console/api paths to the JSON 404', async () => {
    for (const url of ['/console/api', '/console/api/nope', '/console/api/keys/x/y']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: 'not_found' } });
    }
  });

  it('answers a short 503 page saying how to build when the console is not built', async () => {
    for (const url of ['/console/', '/console/keys', '/console/assets/index-abc123.js']) {
      const res = await missing.inject(url);
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('npm run build:console');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
  });
});
