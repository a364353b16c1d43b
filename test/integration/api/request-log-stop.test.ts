/** A graceful stop writes the request log records still queued before the log's store closes. */
import { expect, it } from 'vitest';
import { openSqliteRequestLog } from '../../../shared/src/store/sqlite/request-log.sqlite.ts';
import { createFundedKey, TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

it.skipIf(process.env.TEST_STORE === 'mongodb')(
  'records queued at the stop are in the file after it',
  async () => {
    const test = await buildTestApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    const key = await createFundedKey(test.app, { topUp: 10 });
    const answers = [];
    for (let i = 0; i < 3; i += 1)
      answers.push(
        await test.app.inject({
          method: 'GET',
          url: '/v1/balance',
          headers: { authorization: `Bearer ${key.key}` },
        }),
      );
    const ids = answers.map((answer) => String(answer.headers['x-request-id']));
    // No flush: the records wait for their batch's timer when the stop begins.
    await test.close();
    const log = openSqliteRequestLog({ path: test.config.requestLog.path, busyTimeoutMs: 1000 });
    try {
      for (const id of ids)
        expect(await log.findById(id)).toMatchObject({ id, endpoint: 'balance', status: 200 });
    } finally {
      await log.close();
    }
  },
);
