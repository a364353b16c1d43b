import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../../helpers/admin-client.ts';
import { type GatewayWithFakes, startGatewayWithFakes } from '../../../helpers/gateway-with-fakes.ts';

let g: GatewayWithFakes;
beforeAll(async () => {
  g = await startGatewayWithFakes();
});
afterAll(async () => {
  await g.close();
});

const MODEL = 'openai/gpt-4o-mini';

describe('a price change while a request runs', () => {
  it('charges the request admitted before it the old price, and the one admitted after it the new', async () => {
    await admin(g.gateway.app, 'PATCH', `/models/${MODEL}`, {
      price_override: { input: 1000, output: 2000, cached_input: 1000 },
    });
    const early = await g.fundedClient();
    const late = await g.fundedClient();
    g.openai.script.next({ kind: 'slow', delayMs: 1_500 });
    const running = early.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'a question asked before the change' }],
    });
    // Admitted and at the provider: now the price changes.
    const started = Date.now();
    while (g.openai.requests.length === 0 && Date.now() - started < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await admin(g.gateway.app, 'PATCH', `/models/${MODEL}`, {
      price_override: { input: 10000, output: 20000, cached_input: 10000 },
    });
    const after = await late.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'a question asked before the change' }],
    });
    const before = await running;
    const cost = (usage: { prompt_tokens: number; completion_tokens: number } | undefined, scale: number) =>
      BigInt(((usage?.prompt_tokens ?? 0) * 1000 + (usage?.completion_tokens ?? 0) * 2000) * scale);
    expect(1_000_000_000_000n - (await g.balanceMicros(early.accountId))).toBe(cost(before.usage, 1));
    expect(1_000_000_000_000n - (await g.balanceMicros(late.accountId))).toBe(cost(after.usage, 10));
    await admin(g.gateway.app, 'PATCH', `/models/${MODEL}`, { price_override: null });
  });
});
