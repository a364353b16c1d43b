import { beforeAll, describe, expect, it } from 'vitest';
import { dayOf } from '../../../../shared/src/billing/billing-time.ts';
import { mediaKeys } from '../../../../shared/src/media-jobs/media-storage.ts';
import { storedVideo } from '../../../helpers/stored-video.ts';
import { type Holder, newHolder, useConsoleApp } from './console-client.ts';

const t = useConsoleApp();

interface KeyView {
  id: string;
  name: string;
  state: string;
  active: boolean;
  spent_this_month: number;
  last_used_at: string | null;
  key?: string;
}

/** A chat request of the demo model with the key, written to the store before this resolves. */
async function chat(key: string, content = 'hello'): Promise<void> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}` },
    payload: { model: 'demo/chat', messages: [{ role: 'user', content }] },
  });
  expect(response.statusCode, response.body).toBe(200);
  await t.services.billing.flush();
}

const today = () => dayOf(new Date(), t.config.billing.timeZone);

describe('keys', () => {
  it('creates a key with every setting, shows it once, lists it with its spend and last use', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const created = await holder.agent.expect<KeyView & Record<string, unknown>>(201, 'POST', '/keys', {
      payload: {
        name: 'ci',
        rate_limit: 120,
        monthly_cap: 500.5,
        allowed_ips: ['203.0.113.9'],
        allowed_models: ['demo/chat'],
        identity_injection: false,
        expires_at: '2099-01-01T00:00:00Z',
        active: true,
      },
    });
    expect(created).toMatchObject({
      account_id: holder.accountId,
      name: 'ci',
      rate_limit: 120,
      monthly_cap: 500.5,
      allowed_ips: ['203.0.113.9'],
      allowed_models: ['demo/chat'],
      identity_injection: false,
      expires_at: '2099-01-01T00:00:00.000Z',
      state: 'active',
      key: expect.stringMatching(/^hk-/),
    });

    const list = await holder.agent.expect<{ data: KeyView[] }>(200, 'GET', '/keys');
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: created.id, spent_this_month: 0, last_used_at: null });
    expect(list.data[0]).not.toHaveProperty('key');
  });

  it('shows this month’s spend and the last use once requests are charged', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const used = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'used' } });
    const idle = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'idle' } });
    const before = Date.now();
    await chat(used.key as string, 'one');
    await chat(used.key as string, 'two');

    const list = await holder.agent.expect<{ data: KeyView[] }>(200, 'GET', '/keys');
    const usedView = list.data.find((key) => key.id === used.id);
    const idleView = list.data.find((key) => key.id === idle.id);
    expect(usedView?.spent_this_month).toBeGreaterThan(0);
    expect(Date.parse(usedView?.last_used_at ?? '')).toBeGreaterThanOrEqual(before - 1_000);
    expect(idleView).toMatchObject({ spent_this_month: 0, last_used_at: null });

    const ledger = await holder.agent.expect<{ data: Array<{ kind: string; amount: number }> }>(
      200,
      'GET',
      '/ledger',
    );
    const charged = ledger.data.filter((entry) => entry.kind === 'charge');
    expect(charged).toHaveLength(2);
    const spent = -charged.reduce((sum, entry) => sum + entry.amount, 0);
    expect(usedView?.spent_this_month).toBeCloseTo(spent, 6);
  });

  it('edits (disable, enable, settings) and deletes a key; the change works at once', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const key = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'toggle' } });
    const balance = () =>
      t.app.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${key.key}` } });
    expect((await balance()).statusCode).toBe(200);

    const disabled = await holder.agent.expect<KeyView>(200, 'PATCH', `/keys/${key.id}`, {
      payload: { active: false },
    });
    expect(disabled).toMatchObject({ active: false, state: 'disabled' });
    expect((await balance()).statusCode).toBe(401);

    await holder.agent.expect(200, 'PATCH', `/keys/${key.id}`, {
      payload: { active: true, name: 'renamed' },
    });
    expect((await balance()).statusCode).toBe(200);

    const bad = await holder.agent.request('PATCH', `/keys/${key.id}`, { payload: { rate_limit: 0 } });
    expect(bad.statusCode).toBe(400);
    const unknownField = await holder.agent.request('PATCH', `/keys/${key.id}`, {
      payload: { colour: 'red' },
    });
    expect(unknownField.statusCode).toBe(400);

    expect((await holder.agent.request('DELETE', `/keys/${key.id}`)).statusCode).toBe(204);
    expect((await balance()).statusCode).toBe(401);
    expect((await holder.agent.request('DELETE', `/keys/${key.id}`)).statusCode).toBe(404);
    expect((await holder.agent.expect<{ data: unknown[] }>(200, 'GET', '/keys')).data).toEqual([]);
  });

  it('refuses a 26th active key with 409 key_limit_reached', async () => {
    const holder = await newHolder(t.app);
    for (let i = 0; i < 25; i++)
      await holder.agent.expect(201, 'POST', '/keys', { payload: { name: `k${i}` } });
    const refused = await holder.agent.request('POST', '/keys', { payload: { name: 'one too many' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('key_limit_reached');
    // A disabled one is allowed.
    await holder.agent.expect(201, 'POST', '/keys', { payload: { name: 'spare', active: false } });
  });
});

describe('another account’s things do not exist', () => {
  let owner: Holder;
  let intruder: Holder;
  let keyId: string;
  let videoId: string;

  beforeAll(async () => {
    owner = await newHolder(t.app, { topUp: 1_000 });
    intruder = await newHolder(t.app, { topUp: 1_000 });
    const key = await owner.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'mine' } });
    keyId = key.id;
    const video = await t.app.inject({
      method: 'POST',
      url: '/v1/videos',
      headers: { authorization: `Bearer ${key.key}` },
      payload: { model: 'demo/video', prompt: 'a private video', duration: 4 },
    });
    expect(video.statusCode, video.body).toBe(202);
    videoId = video.json<{ id: string }>().id;
  });

  it('answers 404 key_not_found for another account’s key, as for an unknown id, and changes nothing', async () => {
    for (const id of [keyId, 'key_000000000000000000000000']) {
      const patch = await intruder.agent.request('PATCH', `/keys/${id}`, { payload: { active: false } });
      expect(patch.statusCode).toBe(404);
      expect(patch.json().error.code).toBe('key_not_found');
      const del = await intruder.agent.request('DELETE', `/keys/${id}`);
      expect(del.statusCode).toBe(404);
    }
    const keys = await owner.agent.expect<{ data: KeyView[] }>(200, 'GET', '/keys');
    expect(keys.data.map((key) => [key.id, key.active])).toEqual([[keyId, true]]);
    expect((await intruder.agent.expect<{ data: unknown[] }>(200, 'GET', '/keys')).data).toEqual([]);
  });

  it('answers 404 for another account’s video, and lists only one’s own', async () => {
    const content = await intruder.agent.request('GET', `/videos/${videoId}/content`);
    expect(content.statusCode).toBe(404);
    expect(content.json().error.code).toBe('video_not_found');
    expect((await intruder.agent.expect<{ data: unknown[] }>(200, 'GET', '/videos')).data).toEqual([]);
    const own = await owner.agent.expect<{ data: Array<{ id: string }> }>(200, 'GET', '/videos');
    expect(own.data.map((video) => video.id)).toEqual([videoId]);
  });

  it('shows only one’s own ledger and usage; another account’s ledger is unreachable (404)', async () => {
    const ledger = await intruder.agent.expect<{ data: Array<{ id: string }> }>(200, 'GET', '/ledger');
    expect(ledger.data.every((entry) => entry.id.includes(intruder.accountId))).toBe(true);
    const theirs = await intruder.agent.request('GET', `/accounts/${owner.accountId}/ledger`);
    expect(theirs.statusCode).toBe(404);
    // A cursor naming another account's entry only positions within one's own ledger.
    const ownerLedger = await owner.agent.expect<{ data: Array<{ id: string; created_at: string }> }>(
      200,
      'GET',
      '/ledger',
    );
    const entry = ownerLedger.data[0] as { id: string; created_at: string };
    const cursor = Buffer.from(`${Date.parse(entry.created_at) + 1}:${entry.id}`).toString('base64url');
    const page = await intruder.agent.expect<{ data: Array<{ id: string }> }>(
      200,
      'GET',
      `/ledger?before=${cursor}`,
    );
    expect(page.data.some((row) => row.id === entry.id)).toBe(false);
  });
});

describe('overview, usage and ledger', () => {
  it('summarises the wallet, this month’s spend, the daily cost by model and the top keys', async () => {
    const holder = await newHolder(t.app, { topUp: 2_000 });
    const big = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'big' } });
    const small = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: { name: 'small' } });
    await holder.agent.expect(201, 'POST', '/keys', { payload: { name: 'unused' } });
    await chat(big.key as string, 'a much longer prompt that costs more tokens than the other one');
    await chat(big.key as string, 'again');
    await chat(small.key as string, 'hi');

    const overview = await holder.agent.expect<Record<string, unknown>>(200, 'GET', '/overview?days=7');
    const usage = await holder.agent.expect<{ data: Array<{ cost: number }>; totals: { cost: number } }>(
      200,
      'GET',
      '/usage',
    );
    expect(overview).toMatchObject({
      currency: 'IRT',
      min_required: 0,
      month: today().slice(0, 7),
      to: today(),
      daily: [{ date: today(), model: 'demo/chat', requests: 3 }],
    });
    expect(overview.balance).toBeCloseTo(2_000 - usage.totals.cost, 6);
    expect(overview.spent_this_month).toBeCloseTo(usage.totals.cost, 6);
    const topKeys = overview.top_keys as Array<{ id: string; name: string; spent: number }>;
    expect(topKeys.map((key) => key.name)).toEqual(['big', 'small']);
    expect(topKeys[0]?.spent).toBeGreaterThan(topKeys[1]?.spent ?? Infinity);

    const bad = await holder.agent.request('GET', '/overview?days=8');
    expect(bad.statusCode).toBe(400);
  });

  it('reports usage of a range with totals, filters by model, and exports CSV', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const key = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: {} });
    await chat(key.key as string);
    await chat(key.key as string);

    const report = await holder.agent.expect<Record<string, unknown>>(
      200,
      'GET',
      `/usage?from=${today()}&to=${today()}`,
    );
    expect(report).toMatchObject({
      object: 'list',
      currency: 'IRT',
      from: today(),
      to: today(),
      data: [{ date: today(), model: 'demo/chat', requests: 2 }],
      totals: { requests: 2 },
    });
    const none = await holder.agent.expect<{ data: unknown[] }>(200, 'GET', '/usage?model=demo/other');
    expect(none.data).toEqual([]);

    const csv = await holder.agent.request('GET', '/usage?format=csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(
      /^attachment; filename="usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('date,model,requests,input_tokens,output_tokens,cost_irt');
    expect(lines[1]).toMatch(new RegExp(`^${today()},demo/chat,2,\\d+,\\d+,[0-9.]+$`));
    const byAccept = await holder.agent.request('GET', '/usage', { headers: { accept: 'text/csv' } });
    expect(byAccept.body).toBe(csv.body);

    for (const query of [
      'from=2025-02-31',
      'from=yesterday',
      `from=${today()}&to=2000-01-01`,
      'from=2020-01-01&to=2022-01-01',
      'days=3',
    ]) {
      const refused = await holder.agent.request('GET', `/usage?${query}`);
      expect(refused.statusCode, query).toBe(400);
    }
  });

  it('pages the ledger newest first with an opaque cursor', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const key = await holder.agent.expect<KeyView>(201, 'POST', '/keys', { payload: {} });
    for (let i = 0; i < 4; i++) await chat(key.key as string, `message ${i}`);

    const ids: string[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query = `/ledger?limit=2${before === null ? '' : `&before=${before}`}`;
      const answer: { data: Array<{ id: string; created_at: string }>; next: string | null } =
        await holder.agent.expect(200, 'GET', query);
      expect(answer.data.length).toBeLessThanOrEqual(2);
      ids.push(...answer.data.map((entry) => entry.id));
      before = answer.next;
      if (before === null) break;
    }
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(ids.at(-1)).toMatch(/^topup:/);
    const all = await holder.agent.expect<{ data: Array<{ id: string }>; next: null }>(200, 'GET', '/ledger');
    expect(all.data.map((entry) => entry.id)).toEqual(ids);
    expect(all.next).toBeNull();
    expect((await holder.agent.request('GET', '/ledger?before=garbage')).statusCode).toBe(400);
    expect((await holder.agent.request('GET', '/ledger?limit=0')).statusCode).toBe(400);
  });
});

describe('models and videos', () => {
  it('lists the catalogue with IRT prices, without a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/console/api/models' });
    expect(response.statusCode).toBe(200);
    const models = response.json<{ data: Array<{ id: string; pricing: { currency: string } }> }>().data;
    // The same catalogue as the public API's.
    const publicList = await t.app.inject({ method: 'GET', url: '/v1/models' });
    expect(response.json()).toEqual(publicList.json());
    expect(models.find((model) => model.id === 'demo/chat')?.pricing.currency).toBe('IRT');
  });

  /** A finished video of `holder`, its MP4 stored, downloadable until `expiresAt`. */
  const finishedVideo = (holder: Holder, expiresAt: Date, mp4: Uint8Array) =>
    storedVideo(t.services.media, holder.accountId, 'completed', { mp4, expiresAt });

  it('lists retained videos with a console content URL that serves the MP4 (with ranges)', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const bytes = new Uint8Array(1_000).map((_, i) => i % 251);
    const job = await finishedVideo(holder, new Date(Date.now() + 86_400_000), bytes);

    const list = await holder.agent.expect<{ data: Array<Record<string, unknown>> }>(200, 'GET', '/videos');
    expect(list.data).toEqual([
      expect.objectContaining({
        id: job.id,
        object: 'video',
        status: 'completed',
        url: `/console/api/videos/${job.id}/content`,
        service: { cost: 1, currency: 'IRT' },
      }),
    ]);

    const whole = await holder.agent.request('GET', `/videos/${job.id}/content`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(new Uint8Array(whole.rawPayload)).toEqual(bytes);
    const part = await holder.agent.request('GET', `/videos/${job.id}/content`, {
      headers: { range: 'bytes=10-19' },
    });
    expect(part.statusCode).toBe(206);
    expect(new Uint8Array(part.rawPayload)).toEqual(bytes.slice(10, 20));
  });

  it('serves a video no more once its expires_at has passed, even while its object is still stored', async () => {
    const holder = await newHolder(t.app, { topUp: 1_000 });
    const job = await finishedVideo(holder, new Date(Date.now() - 1_000), new Uint8Array([1, 2, 3]));
    expect(await t.services.media.storage.read(mediaKeys.video(job.id, 'attempt-1'))).not.toBeNull();
    const console = await holder.agent.request('GET', `/videos/${job.id}/content`);
    expect(console.statusCode).toBe(404);
    expect(console.json()).toMatchObject({
      error: { code: 'video_not_found', message: `The video ${job.id} has expired.` },
    });
    // The public API answers the same with one of the holder's keys.
    const { key } = await holder.agent.expect<{ key: string }>(201, 'POST', '/keys', {
      payload: { name: 'videos' },
    });
    const publicAnswer = await t.app.inject({
      method: 'GET',
      url: `/v1/videos/${job.id}/content`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(publicAnswer.statusCode).toBe(404);
    expect(publicAnswer.json()).toMatchObject({ error: { code: 'video_not_found' } });
  });
});
