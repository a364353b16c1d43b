/**
 * Hold sizing (docs/money-core.md, "Hold sizing"): small requests run side by side on a small
 * wallet or cap, a request that states no bound is never refused because of its own hold, requests
 * that state `max_tokens` are admitted only when their bound can be paid (so they never take the
 * wallet below its floor or the key past its cap), and one request with an enormous `max_tokens`
 * never makes the account's other keys answer 402.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/admin-client.ts';
import {
  patchKey,
  rawPost,
  serviceOf,
  tomanMicros,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const { g } = useGatewayWithFakes();
// After-all hooks run last registered first: the ledger is checked before the gateway closes.
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
});

const chat = (key: string, body: Record<string, unknown>) =>
  rawPost(g.gateway.origin, '/v1/chat/completions', key, JSON.stringify(body));
/** A small demo chat as a client of the convention sends it: no `max_tokens`. */
const small = { model: 'demo/chat', messages: [{ role: 'user', content: 'hi' }] };
const costOf = (answer: { json: Record<string, unknown> }) => tomanMicros(serviceOf(answer.json).cost);
const sum = (values: bigint[]) => values.reduce((total, v) => total + v, 0n);
// biome-ignore lint/complexity/useMathMinMax: Math.max does not take bigints.
const largest = (values: bigint[]) => values.reduce((max, v) => (v > max ? v : max), 0n);

describe('a 20 IRT wallet and 50 small demo chats sent at once', () => {
  it('admits at least 45 (all, at about 0.35 IRT held each), and the wallet ends at 20 IRT minus their costs', async () => {
    const { key, accountId } = await g.fundedClient({ topUp: 20, settings: { rate_limit: 3000 } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key, small)));
    const ok = answers.filter((a) => a.status === 200);
    const summary = JSON.stringify(answers.map((a) => a.status));
    expect(ok.length, summary).toBeGreaterThanOrEqual(45);
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(refused.json.error).toMatchObject({ code: 'insufficient_quota' });
    const spent = sum(ok.map(costOf));
    expect(await g.balanceMicros(accountId)).toBe(20_000_000n - spent);
    expect(spent).toBeLessThan(20_000_000n);
  });
});

describe('a request is never refused because of its own hold', () => {
  it('runs a small chat on a 0.01 IRT wallet and under a 0.01 IRT cap, with nothing else in flight', async () => {
    const poor = await g.fundedClient({ topUp: 0.01 });
    expect((await chat(poor.key, small)).status).toBe(200);
    const capped = await g.fundedClient({ settings: { monthly_cap: 0.01 } });
    expect((await chat(capped.key, small)).status).toBe(200);
    // Its spend now passes the cap: the next one is refused (check 6 on the spend itself).
    await g.gateway.services.billing.flush();
    expect((await chat(capped.key, small)).json.error).toMatchObject({ code: 'spend_limit_reached' });
  });
});

describe('a small monthly cap', () => {
  it('admits small chats side by side as far as their holds fit (not one at a time)', async () => {
    for (const [capIrt, atLeast] of [
      [0.5, 2],
      [2, 5],
    ] as const) {
      const { key, keyId } = await g.fundedClient({ settings: { rate_limit: 3000 } });
      await patchKey(g.gateway, keyId, { monthly_cap: capIrt });
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(key, small)));
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length, `cap ${capIrt}`).toBeGreaterThanOrEqual(atLeast);
      for (const refused of answers.filter((a) => a.status !== 200))
        expect(refused.json.error).toMatchObject({ code: 'spend_limit_reached' });
      const costs = ok.map(costOf);
      expect(sum(costs) <= tomanMicros(capIrt) + largest(costs)).toBe(true);
    }
  });

  it('admits requests one after another until the real spend reaches 0.5 IRT, overshooting by at most one', async () => {
    const { key, keyId, accountId } = await g.fundedClient();
    await patchKey(g.gateway, keyId, { monthly_cap: 0.5 });
    const cap = tomanMicros(0.5);
    const costs: bigint[] = [];
    for (let i = 0; i < 40; i++) {
      // The previous charge written: admission sees its cost, not its hold.
      await g.gateway.services.billing.flush();
      const answer = await chat(key, small);
      if (answer.status === 402) {
        expect(answer.json.error).toMatchObject({ code: 'spend_limit_reached' });
        break;
      }
      expect(answer.status).toBe(200);
      costs.push(costOf(answer));
    }
    const spent = sum(costs);
    // Refused only once the spend reached the cap, and past it by less than one request.
    expect(spent >= cap, `spent ${spent}`).toBe(true);
    expect(spent < cap + largest(costs), `spent ${spent}`).toBe(true);
    expect(costs.length).toBeGreaterThanOrEqual(8);
    expect(1_000_000_000_000n - (await g.balanceMicros(accountId))).toBe(spent);
  });
});

describe('requests that state max_tokens', () => {
  it('never take the wallet below its floor, however many run at once, and run as many as it can pay', async () => {
    // The answer (`Demo answer to: …`, cut to max_tokens) costs what its bound allows for.
    const body = {
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'word '.repeat(40) }],
      max_tokens: 16,
    };
    const { key, accountId } = await g.fundedClient({ topUp: 1, settings: { rate_limit: 3000 } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key, body)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(refused.json.error).toMatchObject({ code: 'insufficient_quota' });
    const costs = ok.map(costOf);
    // One at a time until the next one's bound no longer fits above the floor (0): then refused.
    for (let i = 0; i < 40; i++) {
      await g.gateway.services.billing.flush();
      const next = await chat(key, body);
      if (next.status === 402) break;
      costs.push(costOf(next));
    }
    const balance = await g.balanceMicros(accountId);
    expect(balance).toBe(1_000_000n - sum(costs));
    // Refused before the floor was passed, with less than one more request's cost left.
    expect(balance >= 0n, `balance ${balance}`).toBe(true);
    expect(balance < 2n * largest(costs), `balance ${balance}`).toBe(true);
  });
});

describe('one request with an enormous max_tokens', () => {
  const slowChat = (max_tokens: number) => ({
    model: 'openai/gpt-4o',
    messages: [{ role: 'user', content: 'a long one' }],
    max_tokens,
  });

  it('is refused at once (400) and no other key of a 1,000,000 IRT account gets 402', async () => {
    const first = await g.fundedClient({ topUp: 1_000_000 });
    const second = await admin<{ key: string }>(
      g.gateway.app,
      'POST',
      `/accounts/${first.accountId}/keys`,
      {},
    );
    g.openai.script.always({ kind: 'slow', delayMs: 300 });
    try {
      const huge = chat(first.key, slowChat(1e12));
      await new Promise((resolve) => setTimeout(resolve, 100)); // were it admitted, it would be in flight
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(second.key, small)));
      const answer = await huge;
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'invalid_request_error' });
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
    } finally {
      g.openai.script.reset();
    }
  });

  it("holds at most the model's output limit while it runs: the account's other keys go on", async () => {
    const first = await g.fundedClient({ topUp: 1_000_000 });
    const second = await admin<{ key: string }>(
      g.gateway.app,
      'POST',
      `/accounts/${first.accountId}/keys`,
      {},
    );
    // Above gpt-4o's 16,384 output tokens: refused naming the limit, not held at more.
    const above = await chat(first.key, slowChat(16_385));
    expect(above.status).toBe(400);
    expect(JSON.stringify(above.json)).toContain('16384');
    g.openai.script.always({ kind: 'slow', delayMs: 400 });
    try {
      const atLimit = chat(first.key, slowChat(16_384));
      await new Promise((resolve) => setTimeout(resolve, 100)); // in flight, holding ~17,000 IRT
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(second.key, small)));
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200));
      expect((await atLimit).status).toBe(200);
    } finally {
      g.openai.script.reset();
    }
  });

  it('is refused (402) on a wallet that cannot pay its bound, and the account goes on', async () => {
    const first = await g.fundedClient({ topUp: 100 });
    const second = await admin<{ key: string }>(
      g.gateway.app,
      'POST',
      `/accounts/${first.accountId}/keys`,
      {},
    );
    // It may cost up to ~17,000 IRT: the wallet's 100 IRT cannot pay that, so it is refused before
    // any provider is called, and nothing is held for it.
    const upstreamCalls = g.openai.requests.length;
    const bounded = await chat(first.key, slowChat(16_384));
    expect(bounded.status).toBe(402);
    expect(bounded.json.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(g.openai.requests.length).toBe(upstreamCalls);
    expect((await chat(second.key, small)).status).toBe(200);
    // The same request with a bound the wallet can pay runs.
    expect((await chat(first.key, slowChat(64))).status).toBe(200);
  });

  it('is refused (402 spend_limit_reached) under a cap that cannot pay its bound', async () => {
    const { key, keyId } = await g.fundedClient({ topUp: 1_000_000 });
    await patchKey(g.gateway, keyId, { monthly_cap: 100 });
    const refused = await chat(key, slowChat(16_384));
    expect(refused.status).toBe(402);
    expect(refused.json.error).toMatchObject({ code: 'spend_limit_reached' });
    expect((await chat(key, slowChat(64))).status).toBe(200);
  });
});
