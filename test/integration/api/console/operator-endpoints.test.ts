import { UnrecoverableError, Worker } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../../../shared/src/redis/redis.ts';
import { ConsoleAgent, newHolder, tokenOf, useConsoleApp } from './console-client.ts';

const t = useConsoleApp({ env: { PUBLIC_BASE_URL: 'https://gateway.example.com/' } });
let operator: ConsoleAgent;

beforeAll(async () => {
  operator = new ConsoleAgent(t.app);
  await operator.signInOperator();
});

interface AccountView {
  id: string;
  email: string;
  name: string | null;
  status: string;
  balance: number;
}

describe('accounts', () => {
  it('opens an account and answers its invitation link, which the holder follows', async () => {
    const email = `opened-${Date.now()}@example.test`;
    const created = await operator.expect<{
      account: AccountView;
      invitation: { url: string; expires_at: string; purpose: string };
    }>(201, 'POST', '/accounts', { payload: { email, name: 'Opened' } });
    expect(created.account).toMatchObject({ email, name: 'Opened', status: 'active', balance: 0 });
    expect(created.invitation.purpose).toBe('invite');
    expect(created.invitation.url).toMatch(
      /^https:\/\/gateway\.example\.com\/console\/invite#token=[\w-]{43}$/,
    );
    const lifetime = Date.parse(created.invitation.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * 86_400_000);

    const holder = new ConsoleAgent(t.app);
    await holder.expect(200, 'POST', '/password/set', {
      payload: { token: tokenOf(created.invitation.url), password: 'holder password' },
    });
    expect((await holder.expect<{ role: string }>(200, 'GET', '/session')).role).toBe('holder');

    const again = await operator.request('POST', '/accounts', { payload: { email } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('account_exists');
    const unknownField = await operator.request('POST', '/accounts', {
      payload: { email: 'x@y.zz', role: 'admin' },
    });
    expect(unknownField.statusCode).toBe(400);
  });

  it('searches accounts by email or name, a page at a time', async () => {
    const tag = `srch${Date.now()}`;
    for (const [local, name] of [
      ['ann', 'Ann Alpha'],
      ['ben', `Ben ${tag.toUpperCase()}`],
      ['cyd', null],
      ['dan', 'Dan'],
    ] as const) {
      const email = local === 'ben' ? `${local}@example.test` : `${local}.${tag}@example.test`;
      if (local === 'ben' && (await operator.request('GET', `/accounts?q=${email}`)).json().data.length > 0)
        continue;
      await operator.expect(201, 'POST', '/accounts', { payload: { email, name } });
    }
    const all = await operator.expect<{ data: AccountView[]; next: string | null }>(
      200,
      'GET',
      `/accounts?q=${tag}`,
    );
    expect(all.data.map((account) => account.email)).toEqual([
      `ann.${tag}@example.test`,
      'ben@example.test',
      `cyd.${tag}@example.test`,
      `dan.${tag}@example.test`,
    ]);
    expect(all.next).toBeNull();

    const first = await operator.expect<{ data: AccountView[]; next: string }>(
      200,
      'GET',
      `/accounts?q=${tag}&limit=3`,
    );
    expect(first.data).toHaveLength(3);
    const second = await operator.expect<{ data: AccountView[]; next: string | null }>(
      200,
      'GET',
      `/accounts?q=${tag}&limit=3&cursor=${first.next}`,
    );
    expect(second.data.map((account) => account.email)).toEqual([`dan.${tag}@example.test`]);
    expect(second.next).toBeNull();
    expect((await operator.request('GET', '/accounts?cursor=bad')).statusCode).toBe(400);
    expect((await operator.request('GET', '/accounts?limit=101')).statusCode).toBe(400);
  });

  it('reads, deactivates and activates an account; its keys stop and start working', async () => {
    const holder = await newHolder(t.app, { topUp: 10 });
    const key = await holder.agent.expect<{ key: string }>(201, 'POST', '/keys', { payload: {} });
    const balance = () =>
      t.app.inject({ method: 'GET', url: '/v1/balance', headers: { authorization: `Bearer ${key.key}` } });

    expect(await operator.expect(200, 'GET', `/accounts/${holder.accountId}`)).toMatchObject({
      id: holder.accountId,
      balance: 10,
    });
    const off = await operator.expect<AccountView>(200, 'PATCH', `/accounts/${holder.accountId}`, {
      payload: { status: 'inactive' },
    });
    expect(off.status).toBe('inactive');
    expect((await balance()).statusCode).toBe(401);
    await operator.expect(200, 'PATCH', `/accounts/${holder.accountId}`, { payload: { status: 'active' } });
    expect((await balance()).statusCode).toBe(200);
    expect((await operator.request('GET', '/accounts/acct_missing')).statusCode).toBe(404);
  });

  it('tops up exactly once per Idempotency-Key, reading the amount exactly', async () => {
    const holder = await newHolder(t.app);
    const headers = { 'idempotency-key': `topup-${Date.now()}` };
    const first = await operator.expect<{ entry: { amount: number; kind: string }; balance: number }>(
      201,
      'POST',
      `/accounts/${holder.accountId}/topups`,
      { payload: { amount: 1234.567891, reference: 'invoice 7' }, headers },
    );
    expect(first).toMatchObject({ entry: { kind: 'topup', amount: 1234.567891 }, balance: 1234.567891 });
    const replay = await operator.request('POST', `/accounts/${holder.accountId}/topups`, {
      payload: { amount: 1234.567891, reference: 'invoice 7' },
      headers,
    });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().balance).toBe(1234.567891);
    const reused = await operator.request('POST', `/accounts/${holder.accountId}/topups`, {
      payload: { amount: 1, reference: 'invoice 7' },
      headers,
    });
    expect(reused.statusCode).toBe(409);
    const tooPrecise = await operator.request('POST', `/accounts/${holder.accountId}/topups`, {
      payload: { amount: 1.0000001 },
      headers: { 'idempotency-key': 'too-precise' },
    });
    expect(tooPrecise.statusCode).toBe(400);
    const missing = await operator.request('POST', '/accounts/acct_missing/topups', {
      payload: { amount: 1 },
      headers: { 'idempotency-key': 'missing-account' },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('refuses a top-up without an Idempotency-Key, crediting nothing', async () => {
    const holder = await newHolder(t.app);
    const bare = await operator.request('POST', `/accounts/${holder.accountId}/topups`, {
      payload: { amount: 5, reference: 'no key' },
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request_error' });
    expect(bare.json().error.message).toContain('idempotency-key');
    expect(await operator.expect(200, 'GET', `/accounts/${holder.accountId}`)).toMatchObject({ balance: 0 });
  });

  it('credits once when one submission arrives twice at once, and shows a blank reference as the entry id', async () => {
    const holder = await newHolder(t.app);
    const key = `double-${Date.now()}`;
    const answers = await Promise.all(
      [0, 1].map(() =>
        operator.request('POST', `/accounts/${holder.accountId}/topups`, {
          payload: { amount: 7.5, reference: '' },
          headers: { 'idempotency-key': key },
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201]);
    expect(answers.map((answer) => answer.json().balance)).toEqual([7.5, 7.5]);
    const ledger = await holder.agent.expect<{ data: { kind: string; reference: string | null }[] }>(
      200,
      'GET',
      '/ledger',
    );
    expect(ledger.data.filter((entry) => entry.kind === 'topup')).toEqual([
      expect.objectContaining({ amount: 7.5, reference: null }),
    ]);
  });

  it('makes invitation and reset links; a bare request asks for an invitation', async () => {
    const holder = await newHolder(t.app);
    const reset = await operator.expect<{ url: string; purpose: string; expires_at: string }>(
      201,
      'POST',
      `/accounts/${holder.accountId}/invitations`,
      { payload: { purpose: 'reset' } },
    );
    expect(reset.purpose).toBe('reset');
    expect(Date.parse(reset.expires_at) - Date.now()).toBeLessThanOrEqual(3_600_000);
    const bare = await operator.expect<{ purpose: string }>(
      201,
      'POST',
      `/accounts/${holder.accountId}/invitations`,
    );
    expect(bare.purpose).toBe('invite');
    const wrong = await operator.request('POST', `/accounts/${holder.accountId}/invitations`, {
      payload: { purpose: 'admin' },
    });
    expect(wrong.statusCode).toBe(400);
    expect((await operator.request('POST', '/accounts/acct_missing/invitations')).statusCode).toBe(404);
  });

  it('shows an account’s keys, ledger and usage as its holder sees them', async () => {
    const holder = await newHolder(t.app, { topUp: 50 });
    await holder.agent.expect(201, 'POST', '/keys', { payload: { name: 'seen by operator' } });
    for (const path of ['/keys', '/ledger', '/usage', '/usage?format=csv']) {
      const own = await holder.agent.request('GET', path);
      const seen = await operator.request('GET', path.replace('/', `/accounts/${holder.accountId}/`));
      expect(seen.statusCode, path).toBe(200);
      expect(seen.body, path).toBe(own.body);
    }
    for (const path of ['keys', 'ledger', 'usage']) {
      expect((await operator.request('GET', `/accounts/acct_missing/${path}`)).statusCode, path).toBe(404);
    }
  });
});

describe('queues', () => {
  /** Jobs that fail at once: a worker of the test's own prefix whose processor refuses them. */
  async function failJobs(ids: readonly string[]): Promise<void> {
    const queue = t.services.media.queues.video;
    const connection = createRedis(t.config.redis, { forBullmq: true });
    const worker = new Worker(
      'video',
      async (job) => {
        throw new UnrecoverableError(`render of ${job.id} broke`);
      },
      { connection, prefix: t.config.queues.prefix },
    );
    worker.on('error', () => undefined);
    const failed = new Promise<void>((resolve) => {
      let count = 0;
      worker.on('failed', () => {
        count += 1;
        if (count === ids.length) resolve();
      });
    });
    for (const id of ids) await queue.add('video.render', { jobId: `doc_${id}` }, { jobId: id, attempts: 1 });
    await failed;
    await worker.close();
    connection.disconnect();
  }

  it('counts jobs per queue, lists failed ones with their error, retries and discards them', async () => {
    const suffix = Date.now();
    await failJobs([`fail-a-${suffix}`, `fail-b-${suffix}`]);

    const counts = await operator.expect<{ data: Array<{ name: string; failed: number }> }>(
      200,
      'GET',
      '/queues',
    );
    expect(counts.data.map((queue) => queue.name)).toEqual(['image', 'speech', 'transcription', 'video']);
    expect(counts.data.find((queue) => queue.name === 'video')?.failed).toBeGreaterThanOrEqual(2);

    const failed = await operator.expect<{ data: Array<Record<string, unknown>> }>(
      200,
      'GET',
      '/queues/video/failed',
    );
    const a = failed.data.find((job) => job.id === `fail-a-${suffix}`);
    expect(a).toMatchObject({
      name: 'video.render',
      media_job_id: `doc_fail-a-${suffix}`,
      failed_reason: `render of fail-a-${suffix} broke`,
      created_at: expect.any(String),
    });

    await operator.expect(204, 'POST', `/queues/video/failed/fail-a-${suffix}/retry`);
    const retried = await t.services.media.queues.video.getJob(`fail-a-${suffix}`);
    expect(await retried?.getState()).not.toBe('failed');
    await operator.expect(204, 'POST', `/queues/video/failed/fail-b-${suffix}/discard`);
    expect(await t.services.media.queues.video.getJob(`fail-b-${suffix}`)).toBeUndefined();

    const gone = await operator.request('POST', `/queues/video/failed/fail-b-${suffix}/retry`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('job_not_found');
    // Not failed (it waits again): not a failed job.
    expect((await operator.request('POST', `/queues/video/failed/fail-a-${suffix}/discard`)).statusCode).toBe(
      404,
    );
    expect((await operator.request('GET', '/queues/nonsense/failed')).statusCode).toBe(400);
    await retried?.remove();
  });
});
