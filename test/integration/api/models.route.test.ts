import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../../shared/src/catalogue/load-catalogue.ts';
import { PROVIDER_IDS } from '../../../shared/src/providers/provider-ids.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

/** Credentials for every provider: a model is served only when one of its providers has a key. */
const EVERY_PROVIDER_KEY = Object.fromEntries(
  PROVIDER_IDS.filter((id) => id !== 'demo').map((id) => [`${id.toUpperCase()}_API_KEY`, `test-${id}`]),
);

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: EVERY_PROVIDER_KEY });
});
afterAll(() => t.close());

type ModelList = { object: string; data: Array<Record<string, unknown>> };

describe('GET /v1/models', () => {
  it('lists at least 80 models without a key (every provider configured), each with the spec fields', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/models' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<ModelList>();
    expect(body.object).toBe('list');
    expect(body.data.length).toBeGreaterThanOrEqual(80);
    for (const model of body.data) {
      expect(model).toMatchObject({ object: 'model', id: expect.stringMatching(/^[a-z0-9-]+\/.+/) });
      expect(typeof model.created).toBe('number');
      expect(typeof model.owned_by).toBe('string');
      expect(model.pricing).toMatchObject({ currency: 'IRT', input: expect.any(Number) });
    }
    const types = new Set(body.data.map((m) => m.type));
    expect([...types].sort()).toEqual(['chat', 'embedding', 'image', 'sound', 'stt', 'tts', 'video']);
  });

  it('is not rate limited and carries a request id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => t.app.inject({ method: 'GET', url: '/v1/models' })),
    );
    expect(answers.every((res) => res.statusCode === 200)).toBe(true);
    expect(answers[0]?.headers['x-request-id']).toMatch(/^req_/);
    expect(answers[0]?.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('ignores any key sent, valid-looking or not', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /v1/models/{id}', () => {
  async function anyModelId(): Promise<string> {
    const list = (await t.app.inject({ method: 'GET', url: '/v1/models' })).json<ModelList>();
    const id = list.data.find((m) => String(m.id).startsWith('openai/'))?.id;
    return String(id);
  }

  it('answers a slash id given literally', async () => {
    const id = await anyModelId();
    const res = await t.app.inject({ method: 'GET', url: `/v1/models/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      object: 'model',
      created: expect.any(Number),
      owned_by: 'openai',
    });
  });

  it('answers a slash id given %2F-encoded, in either case', async () => {
    const id = await anyModelId();
    for (const encoded of [encodeURIComponent(id), encodeURIComponent(id).replace('%2F', '%2f')]) {
      const res = await t.app.inject({ method: 'GET', url: `/v1/models/${encoded}` });
      expect(res.statusCode, encoded).toBe(200);
      expect(res.json<{ id: string }>().id).toBe(id);
    }
  });

  it('answers an id whose model name has slashes itself', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/v1/models' })).json<ModelList>();
    const deep = list.data.find((m) => String(m.id).split('/').length > 2);
    expect(deep, 'the catalogue has ids like groq/openai/gpt-oss-120b').toBeDefined();
    const id = String(deep?.id);
    for (const url of [`/v1/models/${id}`, `/v1/models/${encodeURIComponent(id)}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json<{ id: string }>().id).toBe(id);
    }
  });

  it('answers 404 model_not_found in the spec format for an unknown id', async () => {
    for (const id of ['openai/no-such-model', 'nobody/x', 'no-slash', 'openai%2Fno-such']) {
      const res = await t.app.inject({ method: 'GET', url: `/v1/models/${id}` });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({
        error: {
          message: expect.any(String),
          type: 'invalid_request_error',
          code: 'model_not_found',
          param: null,
        },
      });
    }
  });

  it('answers a malformed percent-encoding with 400 in the spec format', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/models/openai%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
  });

  it('neither lists nor finds a disabled model', async () => {
    const catalogue = loadCatalogue();
    const disabled = catalogue.list().find((m) => !m.enabled);
    expect(disabled, 'the catalogue keeps one disabled model for this test').toBeDefined();
    const id = String(disabled?.id);
    const list = (await t.app.inject({ method: 'GET', url: '/v1/models' })).json<ModelList>();
    expect(list.data.map((m) => m.id)).not.toContain(id);
    expect(list.data).toHaveLength(
      catalogue.list().length - catalogue.list().filter((m) => !m.enabled).length,
    );
    const res = await t.app.inject({ method: 'GET', url: `/v1/models/${id}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'model_not_found' } });
  });

  it('needs no key', async () => {
    const id = await anyModelId();
    const res = await t.app.inject({ method: 'GET', url: `/v1/models/${id}`, headers: {} });
    expect(res.statusCode).toBe(200);
  });
});
