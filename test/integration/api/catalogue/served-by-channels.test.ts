/**
 * The live catalogue follows the channels: without SIMULATE_PROVIDERS and without OPENAI_API_KEY,
 * the openai models are served once an openai channel is created through the operator API, on
 * this replica and on another within 2 s, and withdrawn from both when it is deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_FAKE_KEY,
  type OpenAIUpstream,
  startOpenAIUpstream,
} from '../../../fakes/openai-upstream.ts';
import { admin, TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { replicaEnvironment } from '../../../helpers/test-config.ts';

const MODEL = 'openai/gpt-4o-mini';
let a: TestApp;
let b: TestApp;
let upstream: OpenAIUpstream;

async function listed(app: TestApp): Promise<string[]> {
  const res = await app.app.inject({ method: 'GET', url: '/v1/models' });
  expect(res.statusCode).toBe(200);
  return (res.json() as { data: { id: string }[] }).data.map((model) => model.id);
}

const openaiModels = async (app: TestApp) => (await listed(app)).filter((id) => id.startsWith('openai/'));

/** Milliseconds until `check` holds; fails after `ms`. */
async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  const env = {
    ...replicaEnvironment('served-by-channels'),
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    OPENAI_API_KEY: undefined,
    SIMULATE_PROVIDERS: 'false',
  };
  [a, b] = [await buildTestApp({ env }), await buildTestApp({ env })];
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
});

describe('models served by the channels', () => {
  it('serves the openai models on both replicas within 2 s of a channel, and withdraws them on its deletion', async () => {
    expect(await openaiModels(a)).toEqual([]);
    expect(await openaiModels(b)).toEqual([]);

    const channel = await admin<{ id: string }>(a.app, 'POST', '/channels', {
      provider: 'openai',
      name: 'openai-main',
      api_key: DEFAULT_FAKE_KEY,
      base_url: upstream.url,
    });
    const onA = await until(async () => (await listed(a)).includes(MODEL), 2_000);
    const onB = await until(async () => (await listed(b)).includes(MODEL), 2_000);
    expect(onA).toBeLessThan(2_000);
    expect(onB).toBeLessThan(2_000);
    // Every openai model of the catalogue file, the same on both replicas.
    expect(await openaiModels(b)).toEqual(await openaiModels(a));
    const found = await b.app.inject({ method: 'GET', url: `/v1/models/${MODEL}` });
    expect(found.statusCode).toBe(200);

    await admin(a.app, 'DELETE', `/channels/${channel.id}`);
    await until(async () => (await openaiModels(a)).length === 0, 2_000);
    await until(async () => (await openaiModels(b)).length === 0, 2_000);
    const gone = await b.app.inject({ method: 'GET', url: `/v1/models/${MODEL}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error: { code: 'model_not_found' } });
  });
});
