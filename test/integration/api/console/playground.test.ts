/**
 * The playground's route into `/v1` (docs/console.md, "Playground"): a signed-in holder tries
 * models without any key of their own; the console makes the session's key (a real key of the
 * account, derived from the session, never sent to the page), charges and limits it like any
 * key, shows its requests in the ledger and usage, keeps it out of the 25-key limit, and deletes
 * it when the session ends.
 */
import { describe, expect, it } from 'vitest';
import { playgroundSecret } from '../../../../api/src/console/playground-secret.ts';
import { admin } from '../../../helpers/admin-client.ts';
import { ConsoleAgent, type Holder, newHolder, useConsoleApp } from './console-client.ts';

const t = useConsoleApp();

const chatBody = (content: string, stream = false) => ({
  model: 'demo/chat',
  messages: [{ role: 'user', content }],
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});

interface KeyView {
  id: string;
  name: string;
  state: string;
  active: boolean;
  console_playground: boolean;
}

const keysOf = async (holder: Holder) =>
  (await holder.agent.expect<{ data: KeyView[] }>(200, 'GET', '/keys')).data;

/** The session's playground key, tried directly on `/v1` (the test knows the session's token). */
function directBalance(holder: Holder, generation = 0) {
  const secret = playgroundSecret(holder.agent.cookie ?? '', generation).key;
  return t.app.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${secret}` } });
}

describe('the playground route', () => {
  it('answers a chat through the session’s own key, charged once and shown in the ledger and usage', async () => {
    const holder = await newHolder(t.app, { topUp: 100 });
    const answer = await holder.agent.request('POST', '/playground/v1/chat/completions', {
      payload: chatBody('hello playground'),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json<{ choices: unknown[]; service: { cost: number } }>();
    expect(body.choices).toHaveLength(1);
    expect(body.service.cost).toBeGreaterThan(0);
    // The key never reaches the page.
    expect(`${answer.body}${JSON.stringify(answer.headers)}`).not.toMatch(/hk-[0-9A-Za-z]{43}/);
    await t.services.billing.flush();

    const [key] = (await keysOf(holder)).filter((k) => k.console_playground);
    expect(key).toMatchObject({ name: 'Console playground', state: 'active', active: true });
    const ledger = await holder.agent.expect<{ data: { id: string; kind: string; key_id: string }[] }>(
      200,
      'GET',
      '/ledger',
    );
    const charges = ledger.data.filter((entry) => entry.kind === 'charge');
    // The answer names the charged request: its id is the ledger entry's.
    expect(charges).toEqual([
      expect.objectContaining({ id: answer.headers['x-request-id'], key_id: key?.id }),
    ]);
    const usage = await holder.agent.expect<{ totals: { requests: number; cost: number } }>(
      200,
      'GET',
      '/usage',
    );
    expect(usage.totals).toMatchObject({ requests: 1, cost: body.service.cost });
    const balance = await holder.agent.expect<{ balance: number }>(200, 'GET', '/overview');
    expect(balance.balance).toBeCloseTo(100 - body.service.cost, 6);
  });

  it('streams a chat as /v1 does, with the same key for every request of the session', async () => {
    const holder = await newHolder(t.app, { topUp: 100 });
    const streamed = await holder.agent.request('POST', '/playground/v1/chat/completions', {
      payload: chatBody('stream please', true),
      headers: { accept: 'text/event-stream' },
    });
    expect(streamed.statusCode).toBe(200);
    expect(streamed.headers['content-type']).toContain('text/event-stream');
    expect(streamed.body).toContain('"service"');
    expect(streamed.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await holder.agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('again') });
    expect((await keysOf(holder)).filter((k) => k.console_playground)).toHaveLength(1);
  });

  it('passes the errors of /v1 through, and reaches no other /v1 route', async () => {
    const holder = await newHolder(t.app, { topUp: 100 });
    const unknownModel = await holder.agent.request('POST', '/playground/v1/chat/completions', {
      payload: { model: 'nobody/none', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(unknownModel.statusCode).toBe(404);
    expect(unknownModel.json().error.code).toBe('model_not_found');
    const missing = await holder.agent.request('GET', '/playground/v1/videos/video_missing');
    expect(missing.statusCode).toBe(404);
    for (const [method, path] of [
      ['GET', '/playground/v1/balance'],
      ['POST', '/playground/v1/embeddings'],
      ['GET', '/playground/v1/usage'],
    ] as const) {
      const refused = await holder.agent.request(method, path, {
        payload: method === 'POST' ? {} : undefined,
      });
      expect(refused.statusCode, `${method} ${path}`).toBe(404);
      expect(refused.json().error.message).toBe(`Unknown route: ${method} /console/api${path}`);
    }
  });

  it('needs a holder session and the CSRF token; operators have no playground', async () => {
    const anonymous = await new ConsoleAgent(t.app).request('POST', '/playground/v1/chat/completions', {
      payload: chatBody('x'),
    });
    expect(anonymous.statusCode).toBe(401);
    const holder = await newHolder(t.app, { topUp: 10 });
    const forged = await holder.agent.request('POST', '/playground/v1/chat/completions', {
      payload: chatBody('x'),
      csrf: 'none',
    });
    expect(forged.statusCode).toBe(403);
    const operator = new ConsoleAgent(t.app);
    await operator.signInOperator();
    expect(
      (await operator.request('POST', '/playground/v1/chat/completions', { payload: chatBody('x') }))
        .statusCode,
    ).toBe(404);
  });

  it('is rate-limited like any key: the 61st request of a minute is 429 with Retry-After', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      statuses.push((await holder.agent.request('GET', '/playground/v1/videos/video_none')).statusCode);
    }
    expect(statuses.slice(0, 60)).toEqual(Array(60).fill(404));
    const limited = await holder.agent.request('GET', '/playground/v1/videos/video_none');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBe('60');
  });

  it('does not count toward the 25 active keys, and works for an account that has them all', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    for (let i = 0; i < 25; i++)
      await holder.agent.expect(201, 'POST', '/keys', { payload: { name: `k${i}` } });
    await holder.agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('full') });
    const full = await holder.agent.request('POST', '/keys', { payload: { name: 'one more' } });
    expect(full.statusCode).toBe(409);
    expect(full.json().error.code).toBe('key_limit_reached');
    const keys = await keysOf(holder);
    expect(keys.filter((k) => k.console_playground)).toHaveLength(1);
    expect(keys.filter((k) => !k.console_playground)).toHaveLength(25);
  });

  it('is a real key of the account, deleted when the session signs out', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    await holder.agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('x') });
    expect((await directBalance(holder)).statusCode).toBe(200);
    const [key] = (await keysOf(holder)).filter((k) => k.console_playground);
    const token = holder.agent.cookie;
    await holder.agent.expect(204, 'DELETE', '/session');
    holder.agent.cookie = token;
    await expect.poll(async () => (await directBalance(holder)).statusCode, { timeout: 5_000 }).toBe(401);
    const listed = await admin<{ data: KeyView[] }>(t.app, 'GET', `/accounts/${holder.accountId}/keys`);
    expect(listed.data.find((k) => k.id === key?.id)).toBeUndefined();
  });

  it('deletes the keys of every ended session: signing out everywhere, and changing the password', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    const other = new ConsoleAgent(t.app);
    await other.signIn(holder.email, holder.password);
    const otherHolder = { ...holder, agent: other };
    for (const agent of [holder.agent, other]) {
      await agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('x') });
    }
    await holder.agent.expect(204, 'PUT', '/password', {
      payload: { current_password: holder.password, new_password: 'a new password here' },
    });
    // The other session ended with its key; this one keeps its own.
    await expect
      .poll(async () => (await directBalance(otherHolder)).statusCode, { timeout: 5_000 })
      .toBe(401);
    expect((await directBalance(holder)).statusCode).toBe(200);
    const token = holder.agent.cookie;
    await holder.agent.expect(204, 'DELETE', '/sessions');
    holder.agent.cookie = token;
    await expect.poll(async () => (await directBalance(holder)).statusCode, { timeout: 5_000 }).toBe(401);
  });

  it('makes a new key when the holder deleted the session’s one', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    await holder.agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('x') });
    const [first] = (await keysOf(holder)).filter((k) => k.console_playground);
    await holder.agent.expect(204, 'DELETE', `/keys/${first?.id}`);
    await holder.agent.expect(200, 'POST', '/playground/v1/chat/completions', { payload: chatBody('y') });
    const [second] = (await keysOf(holder)).filter((k) => k.console_playground);
    expect(second?.id).toBeDefined();
    expect(second?.id).not.toBe(first?.id);
    expect((await directBalance(holder, 1)).statusCode).toBe(200);
  });
});
