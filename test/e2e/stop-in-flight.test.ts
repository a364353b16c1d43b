/**
 * What `app.close()` does to requests still in flight (docs/reliability.md, "Stopping"), in
 * process: they run on for the first part of the stop budget, as they would; what is still open
 * then is ended: a whole answer still awaited from its provider is answered 503 with
 * `Retry-After` in the spec's envelope, a `/v1` stream gets the spec's error event and `[DONE]`,
 * and nothing is charged; a request that ends within the grace is answered and charged as usual.
 * (The same through real processes and SIGINT, media included: test/integration/processes/graceful-stop.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GatewayWithFakes,
  rawPost,
  sseDataLines,
  startGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

/** Work in flight gets half of it (the budget is under 10 s). */
const BUDGET_MS = 2_000;
let g: GatewayWithFakes | undefined;

afterEach(async () => {
  // Its app closed by the test already: this closes the rest (services, connections, fakes).
  await g?.close();
  g = undefined;
});

async function gateway(): Promise<GatewayWithFakes> {
  g = await startGatewayWithFakes({ env: { SHUTDOWN_TIMEOUT_MS: String(BUDGET_MS) } });
  return g;
}

const chat = (model: string, stream: boolean, content = 'hello there') =>
  JSON.stringify({ model, messages: [{ role: 'user', content }], stream });

describe('app.close() with requests in flight', () => {
  it('answers 503 to whole answers still awaited, ends a /v1 stream with the error event, charges nothing', async () => {
    const gw = await gateway();
    const funded = await gw.fundedClient();
    const before = await gw.balanceMicros(funded.accountId);
    gw.openai.script.next({ kind: 'slow', delayMs: 30_000 });
    gw.anthropic.script.next({ kind: 'slow', delayMs: 30_000 });
    gw.gemini.script.next({ kind: 'stall-mid-stream', afterEvents: 1 });
    const origin = gw.gateway.origin;
    const whole = rawPost(origin, '/v1/chat/completions', funded.key, chat('openai/gpt-4o', false));
    const native = rawPost(
      origin,
      '/anthropic/v1/messages',
      funded.key,
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      }),
      { 'content-type': 'application/json', 'x-api-key': funded.key, 'anthropic-version': '2023-06-01' },
    );
    const stream = rawPost(origin, '/v1/chat/completions', funded.key, chat('google/gemini-2.5-flash', true));
    const deadline = Date.now() + 10_000;
    while (gw.openai.requests.length + gw.anthropic.requests.length + gw.gemini.requests.length < 3) {
      if (Date.now() > deadline) throw new Error('the requests did not reach the providers');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const closing = Date.now();
    const closed = gw.gateway.app.close();
    for (const answer of await Promise.all([whole, native])) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.json).toMatchObject({
        error: { type: 'upstream_error', code: 'upstream_error', param: null },
      });
    }
    // Not at once: they ran on for half the budget first.
    expect(Date.now() - closing).toBeGreaterThanOrEqual(BUDGET_MS / 2 - 50);
    const streamed = await stream;
    expect(streamed.status).toBe(200);
    const lines = sseDataLines(String(streamed.json.raw));
    expect(lines.at(-1)).toBe('[DONE]');
    expect(lines.at(-2)).toMatchObject({ error: { type: 'upstream_error', code: 503 } });
    await closed;
    expect(Date.now() - closing).toBeLessThan(BUDGET_MS);
    await gw.gateway.services.billing.flush();
    expect(await gw.gateway.services.billing.balanceOf(funded.accountId)).toBe(before);
  });

  it('lets a request that ends within the grace end as usual, charged once', async () => {
    const gw = await gateway();
    const funded = await gw.fundedClient();
    const before = await gw.balanceMicros(funded.accountId);
    gw.openai.script.next({ kind: 'slow', delayMs: 300 });
    const answer = rawPost(
      gw.gateway.origin,
      '/v1/chat/completions',
      funded.key,
      chat('openai/gpt-4o', false),
    );
    while (gw.openai.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = gw.gateway.app.close();
    const done = await answer;
    expect(done.status).toBe(200);
    await closed;
    await gw.gateway.services.billing.flush();
    const cost = (done.json.service as { cost: number }).cost;
    expect(before - (await gw.gateway.services.billing.balanceOf(funded.accountId))).toBe(
      BigInt(Math.round(cost * 1e6)),
    );
  });
});
