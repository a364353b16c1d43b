/**
 * Hold sizing at real catalogue prices (docs/money-core.md, "Hold sizing"), as properties over
 * random models, replies, balances and concurrency, through the providers' wire fakes:
 *
 * - a wallet that can pay about 1.1 × N small chats of a model admits at least 90 % of N sent at
 *   once, and what they cost stays within the wallet (holds follow what the model's answers used,
 *   not a fixed 128-token reply);
 * - requests that state `max_tokens` are admitted only while their bound fits: however many run at
 *   once, the wallet never goes below its floor and the key never past its cap, and as many run as
 *   the wallet can pay at their bound.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../shared/src/catalogue/load-catalogue.ts';
import {
  patchKey,
  rawPost,
  serviceOf,
  tomanMicros,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const { g } = useGatewayWithFakes();
afterAll(async () => {
  expect(await g.gateway.services.billing.checkLedger()).toEqual([]);
});

/** Chat models whose first route is one of the fakes' providers, at their catalogue prices. */
const FAKED = new Set(['openai', 'anthropic', 'google', 'xai']);
const chatModels = loadCatalogue()
  .list()
  .filter((m) => m.type === 'chat' && m.enabled && FAKED.has(m.routes[0]?.provider ?? ''))
  .map((m) => m.id);

const chat = (key: string, body: Record<string, unknown>) =>
  rawPost(g.gateway.origin, '/v1/chat/completions', key, JSON.stringify(body));
const costOf = (answer: { json: Record<string, unknown> }) => tomanMicros(serviceOf(answer.json).cost);
const sum = (values: bigint[]) => values.reduce((total, v) => total + v, 0n);
const irt = (micros: bigint) => Number(micros) / 1e6;
const words = fc.array(fc.constantFrom('hi', 'hello', 'what', 'is', 'up', 'today', 'please', 'answer'), {
  minLength: 1,
  maxLength: 6,
});

/** What one such chat costs, measured on an account of its own (as a client would first try one). */
async function measuredCost(body: Record<string, unknown>): Promise<bigint> {
  const probe = await g.fundedClient({ topUp: 1_000_000 });
  const answer = await chat(probe.key, body);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return costOf(answer);
}

describe('small chats without max_tokens at real prices', () => {
  it('openai/gpt-4.1: a wallet of 55 chats admits at least 45 of 50 sent at once, within the wallet', async () => {
    const body = { model: 'openai/gpt-4.1', messages: [{ role: 'user', content: 'hi' }] };
    const cost = await measuredCost(body);
    const { key, accountId } = await g.fundedClient({
      topUp: irt(55n * cost),
      settings: { rate_limit: 3000 },
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key, body)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length, JSON.stringify(answers.map((a) => a.status))).toBeGreaterThanOrEqual(45);
    const spent = sum(ok.map(costOf));
    expect(await g.balanceMicros(accountId)).toBe(55n * cost - spent);
    expect(spent <= 55n * cost).toBe(true);
  });

  it('any model, reply and concurrency: 1.1 × N chats admit at least 90 % of N, and cost no more than the wallet', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...chatModels),
        words,
        fc.integer({ min: 10, max: 50 }),
        async (model, text, n) => {
          const body = { model, messages: [{ role: 'user', content: text.join(' ') }] };
          const cost = await measuredCost(body);
          const wallet = (11n * BigInt(n) * cost) / 10n;
          const { key, accountId } = await g.fundedClient({
            topUp: irt(wallet),
            settings: { rate_limit: 3000 },
          });
          const answers = await Promise.all(Array.from({ length: n }, () => chat(key, body)));
          const ok = answers.filter((a) => a.status === 200);
          for (const refused of answers.filter((a) => a.status !== 200))
            expect(refused.json.error).toMatchObject({ code: 'insufficient_quota' });
          expect(ok.length, `${model}: ${ok.length} of ${n}`).toBeGreaterThanOrEqual(Math.ceil(0.9 * n));
          const balance = await g.balanceMicros(accountId);
          expect(balance >= 0n, `${model}: balance ${balance}`).toBe(true);
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe('chats that state max_tokens at real prices', () => {
  it('never take a random wallet below its floor, however many run at once, and run all it can pay', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...chatModels),
        fc.integer({ min: 32, max: 400 }),
        fc.integer({ min: 2, max: 40 }),
        fc.double({ min: 0.3, max: 30, noNaN: true }),
        async (model, maxTokens, n, multiple) => {
          const body = { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens };
          // What its bound costs: the measured input plus max_tokens of output.
          const probe = await measuredCost(body);
          const pricing = loadCatalogue().get(model)?.pricing;
          const outputRate = pricing?.output ?? 0;
          const bound = probe + BigInt(Math.ceil(maxTokens * outputRate));
          const wallet = BigInt(Math.round(Number(bound) * multiple));
          const { key, accountId } = await g.fundedClient({
            topUp: irt(wallet),
            settings: { rate_limit: 3000 },
          });
          const answers = await Promise.all(Array.from({ length: n }, () => chat(key, body)));
          const ok = answers.filter((a) => a.status === 200);
          for (const refused of answers.filter((a) => a.status !== 200))
            expect(refused.json.error).toMatchObject({ code: 'insufficient_quota' });
          const balance = await g.balanceMicros(accountId);
          expect(balance >= 0n, `${model}: balance ${balance}`).toBe(true);
          // Every request whose bound the wallet could still pay ran.
          const payable = Math.min(n, Number(wallet / bound));
          expect(ok.length, `${model}: ${ok.length} of ${n}, ${payable} payable`).toBeGreaterThanOrEqual(
            payable,
          );
        },
      ),
      { numRuns: 8 },
    );
  });

  it('never take a key past its monthly cap, however many run at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...chatModels),
        fc.integer({ min: 32, max: 400 }),
        fc.integer({ min: 2, max: 30 }),
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        async (model, maxTokens, n, multiple) => {
          const body = { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens };
          const probe = await measuredCost(body);
          const outputRate = loadCatalogue().get(model)?.pricing.output ?? 0;
          const bound = probe + BigInt(Math.ceil(maxTokens * outputRate));
          const capIrt = Math.max(0.01, Math.round(irt(bound) * multiple * 100) / 100);
          const { key, keyId, accountId } = await g.fundedClient({
            topUp: 1_000_000,
            settings: { rate_limit: 3000 },
          });
          await patchKey(g.gateway, keyId, { monthly_cap: capIrt });
          const answers = await Promise.all(Array.from({ length: n }, () => chat(key, body)));
          for (const refused of answers.filter((a) => a.status !== 200))
            expect(refused.json.error).toMatchObject({ code: 'spend_limit_reached' });
          const spent = 1_000_000_000_000n - (await g.balanceMicros(accountId));
          expect(spent <= tomanMicros(capIrt), `${model}: spent ${spent} of cap ${capIrt}`).toBe(true);
        },
      ),
      { numRuns: 8 },
    );
  });
});
