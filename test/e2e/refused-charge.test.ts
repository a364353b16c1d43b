/**
 * A charge the settlement refuses before queuing it (billing closing, as in a shutdown) must leave
 * the request's hold to the request: released when the response ends, nothing charged. Handing the
 * hold to the settlement first would leave it to nobody, renewed by its lease for up to an hour.
 * Every caller that hands a hold to the settlement: `/v1` chat (whole and streamed), embeddings and
 * a native route; media is covered by test/unit/api/use-cases/run-sync-job.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { billingKeys } from '../../shared/src/billing/redis-keys.ts';
import { rawPost, useGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';

const { g, funded } = useGatewayWithFakes();
// After the gateway's own set-up: from here every charge is refused at once, as while the api closes.
beforeAll(() => g.gateway.services.billing.close());

/** Holds of the account still in Redis (live or not yet swept). */
async function holdsLeft(accountId: string): Promise<number> {
  const keys = billingKeys(`${g.gateway.config.queues.prefix}:billing:`);
  return g.gateway.connections.redis.zcard(keys.walletHolds(accountId).expiries);
}

const chat = (stream: boolean) =>
  JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hello there' }], stream });

const CALLERS = [
  { name: '/v1 chat', path: '/v1/chat/completions', body: chat(false), status: 503 },
  { name: '/v1 chat stream', path: '/v1/chat/completions', body: chat(true), status: 200 },
  {
    name: '/v1 embeddings',
    path: '/v1/embeddings',
    body: JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'hello' }),
    status: 503,
  },
  {
    name: '/anthropic messages',
    path: '/anthropic/v1/messages',
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hello' }],
    }),
    status: 503,
  },
];

describe('a charge refused before it was queued', () => {
  it.each(CALLERS)('$name: fails, the hold is released at once, nothing is charged', async (c) => {
    const before = await g.gateway.services.billing.balanceOf(funded.accountId);
    const answer = await rawPost(g.gateway.origin, c.path, funded.key, c.body).catch(() => null);
    // A stream's connection breaks off (the body cannot be read to its end).
    if (answer !== null) expect(answer.status).toBe(c.status);
    // The release runs as the response ends: give it a moment, far below a lease.
    const deadline = Date.now() + 2_000;
    while ((await holdsLeft(funded.accountId)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await holdsLeft(funded.accountId)).toBe(0);
    expect(await g.gateway.services.billing.balanceOf(funded.accountId)).toBe(before);
  });
});
