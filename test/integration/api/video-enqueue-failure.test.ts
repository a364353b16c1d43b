import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

// Found by the chaos suite: a video whose enqueue failed was answered 503, then found by the
// reconciler, rendered and charged, so a client retrying as told paid twice.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
});
afterAll(() => t.close());

describe('POST /v1/videos when the job cannot be enqueued', () => {
  it('answers 503 and cancels the job, so nothing renders nor is charged later', async () => {
    const { key, accountId } = await createFundedKey(t.app, { topUp: 10_000 });
    const queue = t.services.media.queues.video;
    const add = queue.add.bind(queue);
    queue.add = () => Promise.reject(new Error('Connection is closed.'));
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/videos',
        headers: { authorization: `Bearer ${key}` },
        payload: { model: 'demo/video', prompt: 'never rendered', duration: 4 },
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      queue.add = add;
    }
    const [job] = await t.services.media.jobs.listOwned(accountId, 'video', 10);
    expect(job?.status).toBe('cancelled');
    // A worker or the reconciler finding it later cannot take it: it is no longer queued.
    expect(await t.services.media.jobs.markRunning(job?.id ?? '', new Date())).toBeNull();
    await t.services.billing.flush();
    expect(await t.services.billing.balanceOf(accountId)).toBe(10_000_000_000n);
  });
});
