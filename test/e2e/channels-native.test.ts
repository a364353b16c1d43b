/**
 * The provider-native APIs through API channels: a prefix whose provider has no channel answers
 * 404 `provider_not_found`; once the operator makes one (no restart), `/anthropic/v1/messages` is
 * served through it with its credential, and a refused credential moves to the next channel and
 * auto-disables the refused one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_FAKE_KEY,
  type AnthropicUpstream,
  startAnthropicUpstream,
} from '../fakes/anthropic-upstream.ts';
import { admin, createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

let gateway: ListeningApp;
let key: string;
let good: AnthropicUpstream;
let refusing: AnthropicUpstream;

const body = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

async function messages(): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await gateway.app.inject({
    method: 'POST',
    url: '/anthropic/v1/messages',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    payload: body,
  });
  return { status: res.statusCode, json: res.json() };
}

beforeAll(async () => {
  [good, refusing] = [
    await startAnthropicUpstream(),
    await startAnthropicUpstream({ apiKey: 'another-key' }),
  ];
  gateway = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ANTHROPIC_API_KEY: undefined } });
  ({ key } = await createFundedKey(gateway.app, { topUp: 1_000_000 }));
});
afterAll(async () => {
  await gateway?.close();
  await good?.close();
  await refusing?.close();
});

describe('native APIs through channels', () => {
  it('serves a provider once it has a channel, through the channel’s URL and credential', async () => {
    const before = await messages();
    expect(before.status).toBe(404);
    expect((before.json.error as { code?: string } | undefined)?.code ?? JSON.stringify(before.json)).toMatch(
      /provider_not_found|not_found/,
    );
    const refused = await admin<{ id: string }>(gateway.app, 'POST', '/channels', {
      provider: 'anthropic',
      name: 'anthropic-refusing',
      api_key: ANTHROPIC_FAKE_KEY,
      base_url: refusing.url,
      priority: 0,
    });
    await admin(gateway.app, 'POST', '/channels', {
      provider: 'anthropic',
      name: 'anthropic-good',
      api_key: ANTHROPIC_FAKE_KEY,
      base_url: good.url,
      priority: 1,
    });
    const served = await messages();
    expect(served.status).toBe(200);
    expect(served.json.type).toBe('message');
    expect(good.requests.at(-1)?.headers['x-api-key']).toBe(ANTHROPIC_FAKE_KEY);
    expect(refusing.requests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const seen = await admin<{ status: string }>(gateway.app, 'GET', `/channels/${refused.id}`);
    expect(seen.status).toBe('auto_disabled');
    expect((await messages()).status).toBe(200);
    expect(refusing.requests).toHaveLength(1);
  });
});
