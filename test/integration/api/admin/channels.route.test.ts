/**
 * The operator API's channels on the whole app: every field, default and answer; every 400, 404 and
 * 409 path in the spec's envelope; environment channels read-only; the credential never answered or
 * logged; the test endpoint against fakes of each kind (a chat provider, ElevenLabs, Runway).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ElevenLabsUpstream, startElevenLabsUpstream } from '../../../fakes/elevenlabs-upstream.ts';
import {
  DEFAULT_FAKE_KEY,
  type OpenAIUpstream,
  startOpenAIUpstream,
} from '../../../fakes/openai-upstream.ts';
import { RUNWAY_FAKE_KEY, type RunwayUpstream, startRunwayUpstream } from '../../../fakes/runway-upstream.ts';
import { TEST_ADMIN_TOKEN } from '../../../helpers/admin-client.ts';
import { ELEVENLABS_FAKE_KEY } from '../../../helpers/media-gateway.ts';
import { buildTestApp, type TestApp } from '../../../helpers/test-app.ts';

let t: TestApp;
let openai: OpenAIUpstream;
let elevenlabs: ElevenLabsUpstream;
let runway: RunwayUpstream;
const SECRET = 'sk-channel-secret-never-shown-7c1e';

type Answer = { status: number; body: Record<string, unknown> };

async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<Answer> {
  const res = await t.app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: res.body === '' ? {} : res.json() };
}

const errorOf = (answer: Answer) => answer.body.error as { type: string; code: string; message: string };

beforeAll(async () => {
  [openai, elevenlabs, runway] = [
    await startOpenAIUpstream(),
    await startElevenLabsUpstream(),
    await startRunwayUpstream(),
  ];
  t = await buildTestApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      OPENAI_API_KEY: 'sk-environment-key-1234',
      OPENAI_BASE_URL: openai.url,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await openai?.close();
  await elevenlabs?.close();
  await runway?.close();
});

describe('operator API: channels', () => {
  it('creates a channel with its defaults and answers it without its credential', async () => {
    const created = await call('POST', '/channels', { provider: 'openai', name: 'primary', api_key: SECRET });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'channel',
      provider: 'openai',
      name: 'primary',
      base_url: openai.url,
      key_last4: '7c1e',
      weight: 1,
      priority: 0,
      models: null,
      enabled: true,
      status: 'healthy',
      status_reason: null,
      cooldown_until: null,
      source: 'api',
      requests: 0,
      failures: 0,
      p50_latency_ms: null,
    });
    expect(String(created.body.id)).toMatch(/^ch_/);
    const listed = await call('GET', '/channels');
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(JSON.stringify(t.logs())).not.toContain(SECRET);
    expect(await call('GET', `/channels/${created.body.id}`)).toMatchObject({
      status: 200,
      body: { name: 'primary' },
    });
  });

  it('lists the environment channel, read-only', async () => {
    const { body } = await call('GET', '/channels');
    const env = (body.data as Array<Record<string, unknown>>).find((c) => c.source === 'environment');
    expect(env).toMatchObject({
      id: 'ch_env_openai',
      provider: 'openai',
      key_last4: '1234',
      status: 'healthy',
    });
    for (const answer of [
      await call('PATCH', '/channels/ch_env_openai', { weight: 5 }),
      await call('DELETE', '/channels/ch_env_openai'),
    ]) {
      expect(answer.status).toBe(409);
      expect(errorOf(answer).code).toBe('channel_read_only');
    }
  });

  it('edits any field; a new api_key replaces the credential', async () => {
    const made = await call('POST', '/channels', {
      provider: 'openai',
      name: 'to-edit',
      api_key: 'sk-first-aaaa',
      models: ['openai/gpt-4o'],
      base_url: 'https://proxy.example.test/v1/',
    });
    expect(made.body).toMatchObject({ base_url: 'https://proxy.example.test/v1', models: ['openai/gpt-4o'] });
    const edited = await call('PATCH', `/channels/${made.body.id}`, {
      name: 'edited',
      weight: 1000,
      priority: -3,
      enabled: false,
      models: null,
      base_url: null,
      api_key: 'sk-second-bbbb',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'edited',
      weight: 1000,
      priority: -3,
      enabled: false,
      status: 'disabled',
      models: null,
      base_url: openai.url,
      key_last4: 'bbbb',
    });
    expect((await call('DELETE', `/channels/${made.body.id}`)).status).toBe(204);
    expect((await call('GET', `/channels/${made.body.id}`)).status).toBe(404);
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown provider', { provider: 'nonesuch', name: 'x1', api_key: 'k' }, /Unknown provider/],
    ['the demo simulator', { provider: 'demo', name: 'x2', api_key: 'k' }, /Unknown provider/],
    [
      'a base_url that is not http(s)',
      { provider: 'openai', name: 'x3', api_key: 'k', base_url: 'ftp://h' },
      /base_url/,
    ],
    [
      'a base_url that is no URL',
      { provider: 'openai', name: 'x4', api_key: 'k', base_url: 'not a url' },
      /base_url/,
    ],
    ['a missing api_key', { provider: 'openai', name: 'x5' }, /api_key/],
    ['an empty api_key', { provider: 'openai', name: 'x6', api_key: '' }, /api_key/],
    ['a weight of 0', { provider: 'openai', name: 'x7', api_key: 'k', weight: 0 }, /weight/],
    ['a weight over 1000', { provider: 'openai', name: 'x8', api_key: 'k', weight: 1001 }, /weight/],
    ['a fractional weight', { provider: 'openai', name: 'x9', api_key: 'k', weight: 1.5 }, /weight/],
    [
      'a model of another provider',
      { provider: 'openai', name: 'x10', api_key: 'k', models: ['anthropic/claude-sonnet-4-5'] },
      /models/,
    ],
    [
      'an unknown model',
      { provider: 'openai', name: 'x11', api_key: 'k', models: ['openai/nope'] },
      /models/,
    ],
    ['no model', { provider: 'openai', name: 'x12', api_key: 'k', models: [] }, /models/],
    ['a taken name', { provider: 'openai', name: 'primary', api_key: 'k' }, /already exists/],
    ['an unknown field', { provider: 'openai', name: 'x13', api_key: 'k', colour: 'red' }, /colour/],
    ['a string priority', { provider: 'openai', name: 'x14', api_key: 'k', priority: '1' }, /priority/],
  ];
  for (const [what, payload, message] of bad) {
    it(`refuses ${what} with 400 in the envelope`, async () => {
      const answer = await call('POST', '/channels', payload);
      expect(answer.status).toBe(400);
      expect(errorOf(answer).type).toBe('invalid_request_error');
      expect(errorOf(answer).message).toMatch(message);
    });
  }

  it('refuses a taken name and bad fields on edit, and unknown ids with 404', async () => {
    const other = await call('POST', '/channels', { provider: 'openai', name: 'other', api_key: 'sk-other' });
    const taken = await call('PATCH', `/channels/${other.body.id}`, { name: 'primary' });
    expect([taken.status, errorOf(taken).code]).toEqual([400, 'channel_name_taken']);
    expect((await call('PATCH', `/channels/${other.body.id}`, { weight: 0 })).status).toBe(400);
    expect((await call('PATCH', `/channels/${other.body.id}`, {})).status).toBe(400);
    expect(
      (
        await call('PATCH', `/channels/${other.body.id}`, {
          provider: 'anthropic',
          models: ['openai/gpt-4o'],
        })
      ).status,
    ).toBe(400);
    for (const answer of [
      await call('GET', '/channels/ch_missing'),
      await call('PATCH', '/channels/ch_missing', { weight: 2 }),
      await call('DELETE', '/channels/ch_missing'),
      await call('POST', '/channels/ch_missing/test'),
    ]) {
      expect(answer.status).toBe(404);
      expect(errorOf(answer).code).toBe('channel_not_found');
    }
    expect((await call('DELETE', `/channels/${other.body.id}?force=maybe`)).status).toBe(400);
  });

  it('tests a chat channel with a 1-token chat, and reports a refused credential without it', async () => {
    const good = await call('POST', '/channels', {
      provider: 'openai',
      name: 'test-good',
      api_key: DEFAULT_FAKE_KEY,
      base_url: openai.url,
    });
    const before = openai.requests.length;
    const passed = await call('POST', `/channels/${good.body.id}/test`);
    expect(passed.status).toBe(200);
    expect(passed.body).toMatchObject({ ok: true, status: 200 });
    expect(typeof passed.body.latency_ms).toBe('number');
    const sent = JSON.parse(openai.requests[before]?.body.toString() ?? '{}') as {
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(1);

    const refused = await call('POST', '/channels', {
      provider: 'openai',
      name: 'test-refused',
      api_key: SECRET,
      base_url: openai.url,
    });
    const failed = await call('POST', `/channels/${refused.body.id}/test`);
    expect(failed.body).toMatchObject({ ok: false });
    expect(JSON.stringify(failed.body)).not.toContain(SECRET);
    expect((await call('GET', `/channels/${refused.body.id}`)).body.status).toBe('auto_disabled');
    // The right key, then a passing test: healthy again.
    await call('PATCH', `/channels/${refused.body.id}`, { api_key: DEFAULT_FAKE_KEY });
    expect((await call('POST', `/channels/${refused.body.id}/test`)).body.ok).toBe(true);
    expect((await call('GET', `/channels/${refused.body.id}`)).body.status).toBe('healthy');
  });

  it('tests a channel of a provider without chat with its account call', async () => {
    const voice = await call('POST', '/channels', {
      provider: 'elevenlabs',
      name: 'voice',
      api_key: ELEVENLABS_FAKE_KEY,
      base_url: elevenlabs.url,
    });
    expect((await call('POST', `/channels/${voice.body.id}/test`)).body).toMatchObject({
      ok: true,
      status: 200,
    });
    const video = await call('POST', '/channels', {
      provider: 'runway',
      name: 'video',
      api_key: RUNWAY_FAKE_KEY,
      base_url: runway.url,
    });
    expect((await call('POST', `/channels/${video.body.id}/test`)).body).toMatchObject({
      ok: true,
      status: 200,
    });
    const wrong = await call('POST', '/channels', {
      provider: 'runway',
      name: 'video-wrong',
      api_key: 'key_wrong',
      base_url: runway.url,
    });
    expect((await call('POST', `/channels/${wrong.body.id}/test`)).body).toMatchObject({
      ok: false,
      status: 401,
    });
  });
});

describe('operator API: channels without CHANNEL_SECRET_KEY', () => {
  it('refuses to create a channel, naming the setting', async () => {
    const bare = await buildTestApp({
      env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, CHANNEL_SECRET_KEY: undefined },
    });
    try {
      const res = await bare.app.inject({
        method: 'POST',
        url: '/admin/v1/channels',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { provider: 'openai', name: 'n', api_key: 'k' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'channel_secret_key_missing' });
      expect(res.json().error.message).toContain('CHANNEL_SECRET_KEY');
    } finally {
      await bare.close();
    }
  });
});
