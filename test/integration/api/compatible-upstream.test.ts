import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_KEY, type OpenAIUpstream, startOpenAIUpstream } from '../../fakes/openai-upstream.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

let upstream: OpenAIUpstream;
let t: TestApp;

/** The real catalogue plus one model served by a configured OpenAI-compatible upstream. */
async function catalogueWithCompatibleModel(): Promise<string> {
  const catalogue = JSON.parse(await readFile('shared/src/catalogue/models.json', 'utf8')) as {
    models: unknown[];
  };
  catalogue.models.push({
    id: 'together/llama-test',
    name: 'Llama (test upstream)',
    type: 'chat',
    owned_by: 'together',
    created: 1_700_000_000,
    context_window: 8192,
    max_output_tokens: 1024,
    capabilities: ['streaming'],
    native_id: 'llama-test',
    list_price_usd: { unit: '1M_tokens', input: 0.2, output: 0.2 },
    routes: [{ provider: 'together', native_id: 'llama-test' }],
    aliases: [],
  });
  const path = join(await mkdtemp(join(tmpdir(), 'catalogue-')), 'models.json');
  await writeFile(path, JSON.stringify(catalogue));
  return path;
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  t = await buildTestApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      CATALOGUE_PATH: await catalogueWithCompatibleModel(),
      OPENAI_COMPATIBLE_UPSTREAMS: 'together',
      TOGETHER_BASE_URL: upstream.url,
      TOGETHER_API_KEY: DEFAULT_FAKE_KEY,
    },
  });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

describe('an OpenAI-compatible upstream declared in configuration', () => {
  it('serves the catalogue models routed to it', async () => {
    const { key } = await createFundedKey(t.app, { topUp: 10_000 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}` },
      payload: { model: 'together/llama-test', messages: [{ role: 'user', content: 'ping' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ model: 'together/llama-test', service: { currency: 'IRT' } });
    const sent = JSON.parse(upstream.requests.at(-1)?.body.toString() ?? '{}') as { model?: string };
    expect(sent.model).toBe('llama-test');
  });
});
