/**
 * A model whose every route names a provider without credentials is unavailable in the API, the
 * same everywhere: not listed, not found, 404 `model_not_found` on every endpoint. `demo` always
 * counts as configured; a model with one configured route stays. Here only Groq has a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueModel } from '../../../shared/src/catalogue/catalogue.ts';
import type { ModelType } from '../../../shared/src/catalogue/catalogue-schema.ts';
import { loadCatalogue } from '../../../shared/src/catalogue/load-catalogue.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

let t: TestApp;
let key: string;
const file = loadCatalogue();

beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, GROQ_API_KEY: 'test-groq' } });
  ({ key } = await createFundedKey(t.app, { topUp: 100_000 }));
});
afterAll(() => t.close());

const configured = (model: CatalogueModel) =>
  model.routes.some((route) => route.provider === 'demo' || route.provider === 'groq');

/** An enabled model of the file of this type whose every route goes to an unconfigured provider. */
function unconfiguredModel(type: ModelType): CatalogueModel {
  const model = file.list().find((m) => m.type === type && m.enabled && !configured(m));
  if (model === undefined) throw new Error(`the catalogue has no unconfigured ${type} model`);
  return model;
}

async function listedIds(): Promise<string[]> {
  const res = await t.app.inject({ method: 'GET', url: '/v1/models' });
  return res.json<{ data: Array<{ id: string }> }>().data.map((model) => model.id);
}

function expectModelNotFound(res: { statusCode: number; json(): unknown; body: string }) {
  expect(res.statusCode, res.body).toBe(404);
  expect(res.json()).toEqual({
    error: {
      message: expect.any(String),
      type: 'invalid_request_error',
      code: 'model_not_found',
      param: null,
    },
  });
}

const post = (url: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${key}` }, payload });

describe('models of providers without credentials', () => {
  it('lists exactly the enabled models with a configured route (demo always, Groq here)', async () => {
    const expected = file
      .list()
      .filter((m) => m.enabled && configured(m))
      .map((m) => m.id);
    expect((await listedIds()).sort()).toEqual([...expected].sort());
    expect(expected.some((id) => id.startsWith('demo/'))).toBe(true);
    expect(expected.some((id) => id.startsWith('groq/'))).toBe(true);
  });

  it('keeps a model with at least one configured route (openai/whisper-1: OpenAI, then Groq)', async () => {
    const whisper = file.get('openai/whisper-1');
    expect(whisper?.routes.map((route) => route.provider)).toEqual(['openai', 'groq']);
    expect(await listedIds()).toContain('openai/whisper-1');
    expect((await t.app.inject({ method: 'GET', url: '/v1/models/openai/whisper-1' })).statusCode).toBe(200);
  });

  it('does not find one: GET /v1/models/{id} answers 404 model_not_found', async () => {
    const chat = unconfiguredModel('chat');
    expect(await listedIds()).not.toContain(chat.id);
    expectModelNotFound(await t.app.inject({ method: 'GET', url: `/v1/models/${chat.id}` }));
    expectModelNotFound(
      await t.app.inject({ method: 'GET', url: `/v1/models/${encodeURIComponent(chat.id)}` }),
    );
  });

  it('answers 404 model_not_found on chat, by id, alias or upstream id, and on embeddings', async () => {
    const chat = unconfiguredModel('chat');
    const messages = [{ role: 'user', content: 'hi' }];
    for (const name of [chat.id, chat.native_id, ...chat.aliases]) {
      expectModelNotFound(await post('/v1/chat/completions', { model: name, messages }));
    }
    const embedding = unconfiguredModel('embedding');
    expectModelNotFound(await post('/v1/embeddings', { model: embedding.id, input: 'hi' }));
  });

  it('answers 404 model_not_found on images, speech and videos, named or by default', async () => {
    expectModelNotFound(
      await post('/v1/images/generations', { model: unconfiguredModel('image').id, prompt: 'x' }),
    );
    // The default image model (openai/gpt-image-1) is unavailable too: a request naming none.
    expect(configured(file.get(t.config.media.defaultImageModel) as CatalogueModel)).toBe(false);
    expectModelNotFound(await post('/v1/images/generations', { prompt: 'x' }));
    expectModelNotFound(
      await post('/v1/audio/speech', { model: unconfiguredModel('tts').id, input: 'hello', voice: 'alloy' }),
    );
    expectModelNotFound(await post('/v1/videos', { model: unconfiguredModel('video').id, prompt: 'x' }));
  });

  it('still serves demo models', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
