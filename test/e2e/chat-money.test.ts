/**
 * Money over HTTP (issue 4, item 7 and "Done when"): the wallet decreases by exactly the sum of the
 * reported `service.cost` (non-streamed answers and the usage chunk of streams), the ledger check
 * passes, usage rows per day × model add up, and 50 concurrent requests against a monthly cap with
 * room for about 5 overshoot it by at most one request's cost.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  patchKey,
  rawPost,
  serviceOf,
  tomanMicros,
  useGatewayWithFakes,
} from '../helpers/gateway-with-fakes.ts';

const { g } = useGatewayWithFakes();

interface Spent {
  model: string;
  cost: number;
  input: number;
  output: number;
}

async function nonStreamed(client: OpenAI, model: string, content: string): Promise<Spent> {
  const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content }] });
  const usage = completion.usage;
  return {
    model,
    cost: serviceOf(completion).cost,
    input: usage?.prompt_tokens ?? -1,
    output: usage?.completion_tokens ?? -1,
  };
}

async function streamed(client: OpenAI, model: string, content: string): Promise<Spent> {
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
  for await (const chunk of stream) last = chunk;
  const usage = last?.usage;
  return {
    model,
    cost: serviceOf(last).cost,
    input: usage?.prompt_tokens ?? -1,
    output: usage?.completion_tokens ?? -1,
  };
}

describe('the wallet equals the sum of reported costs', () => {
  it('decreases by exactly the sum of `service.cost` over a series of requests', async () => {
    const { client, accountId, key } = await g.fundedClient({ topUp: 500_000 });
    const before = await g.balanceMicros(accountId);
    const spent: Spent[] = [];
    for (const model of ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-flash']) {
      spent.push(await nonStreamed(client, model, `a question for ${model}`));
      spent.push(await streamed(client, model, `a streamed question for ${model} with more words`));
    }
    const embedding = await client.embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'money',
    });
    spent.push({
      model: 'openai/text-embedding-3-small',
      cost: serviceOf(embedding).cost,
      input: 2,
      output: 0,
    });
    // A failed request costs nothing and is not counted.
    g.openai.script.next({ kind: 'status', status: 429 }, 2);
    await expect(nonStreamed(client, 'openai/gpt-4o', 'refused')).rejects.toMatchObject({ status: 429 });

    expect(spent.every((s) => s.cost > 0)).toBe(true);
    const total = spent.reduce((sum, s) => sum + tomanMicros(s.cost), 0n);
    expect(before - (await g.balanceMicros(accountId))).toBe(total);
    expect(await g.gateway.services.billing.checkLedger()).toEqual([]);

    // One usage row per day × model, summing requests, tokens and cost.
    const response = await fetch(`${g.gateway.origin}/v1/usage?days=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const usage = (await response.json()) as {
      data: Array<{
        model: string;
        requests: number;
        input_tokens: number;
        output_tokens: number;
        cost: number;
      }>;
    };
    const models = [...new Set(spent.map((s) => s.model))].sort();
    expect(usage.data.map((row) => row.model).sort()).toEqual(models);
    for (const model of models) {
      const mine = spent.filter((s) => s.model === model);
      const row = usage.data.find((r) => r.model === model);
      expect(row).toMatchObject({
        requests: mine.length,
        input_tokens: mine.reduce((sum, s) => sum + s.input, 0),
        output_tokens: mine.reduce((sum, s) => sum + s.output, 0),
      });
      expect(tomanMicros(row?.cost ?? 0)).toBe(mine.reduce((sum, s) => sum + tomanMicros(s.cost), 0n));
    }
  });
});

describe('the cost of a request', () => {
  /** µIRT of `tokens` at `priceIrt` per 1M tokens (catalogue prices have at most 2 decimals). */
  const priced = (tokens: number, priceIrt: number) => BigInt(tokens) * BigInt(Math.round(priceIrt * 100));

  it('is usage × the published price: cached input at cached_input, reasoning as output', async () => {
    const { client } = await g.fundedClient();
    const cases: Array<Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming>> = [
      { model: 'openai/gpt-4o' },
      { model: 'openai/gpt-5', reasoning_effort: 'low' },
      { model: 'anthropic/claude-sonnet-4-5', reasoning_effort: 'low' },
      { model: 'google/gemini-2.5-flash', reasoning_effort: 'medium' },
    ];
    for (const extra of cases) {
      const model = extra.model ?? '';
      const completion = await client.chat.completions.create({
        messages: [{ role: 'user', content: `what does ${model} cost` }],
        ...extra,
        model,
      });
      const pricing = (
        (await (await fetch(`${g.gateway.origin}/v1/models/${model}`)).json()) as {
          pricing: { input: number; output: number; cached_input: number | null };
        }
      ).pricing;
      const usage = completion.usage;
      const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
      const hundredths =
        priced((usage?.prompt_tokens ?? 0) - cached, pricing.input) +
        priced(cached, pricing.cached_input ?? pricing.input) +
        priced(usage?.completion_tokens ?? 0, pricing.output);
      const expected = (hundredths + 50n) / 100n; // rounded half up, once
      expect(tomanMicros(serviceOf(completion).cost), model).toBe(expected);
    }
  });
});

describe('the monthly cap under 50 concurrent requests', () => {
  const request = JSON.stringify({
    model: 'openai/gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    // The whole answer (`Echo: hi`, 2 tokens) fits the bound, as a real upstream would honour it,
    // so each hold is a true upper bound of the cost (its input, once a request of this shape was
    // answered, as the provider counted it).
    max_tokens: 2,
  });

  it('never passes the cap with bounded requests, refusing the rest with 402 spend_limit_reached', async () => {
    const probe = await g.fundedClient();
    const probed = await rawPost(g.gateway.origin, '/v1/chat/completions', probe.key, request);
    const cost = tomanMicros(serviceOf(probed.json).cost);

    const { key, keyId, accountId } = await g.fundedClient({ settings: { rate_limit: 3000 } });
    const capMicros = (cost * 11n) / 2n; // room for about 5
    await patchKey(g.gateway, keyId, { monthly_cap: Number(capMicros) / 1e6 });
    const before = await g.balanceMicros(accountId);

    // A slow upstream keeps all 50 in flight together: every admission sees the others' holds.
    g.openai.script.always({ kind: 'slow', delayMs: 150 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => rawPost(g.gateway.origin, '/v1/chat/completions', key, request)),
    );
    g.openai.script.reset();
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 402);
    const summary = JSON.stringify({
      statuses: answers.map((a) => a.status),
      others: answers.filter((a) => a.status !== 200 && a.status !== 402).map((a) => a.json),
      cost: String(cost),
      cap: String(capMicros),
    });
    expect(ok.length + refused.length, summary).toBe(50);
    for (const answer of refused) {
      expect(answer.json.error).toMatchObject({ type: 'spend_limit_reached', code: 'spend_limit_reached' });
    }
    const costs = ok.map((a) => tomanMicros(serviceOf(a.json).cost));
    const spent = costs.reduce((sum, c) => sum + c, 0n);
    // biome-ignore lint/complexity/useMathMinMax: Math.max does not take bigints.
    const largest = costs.reduce((max, c) => (c > max ? c : max), 0n);
    expect(spent <= capMicros, `spent ${spent}, ${summary}`).toBe(true);
    // Each is admitted only when its bound fits beside the others' holds: 5 fit a cap of 5.5.
    expect(ok.length, summary).toBeGreaterThanOrEqual(2);
    expect(ok.length, summary).toBeLessThanOrEqual(5);
    expect(before - (await g.balanceMicros(accountId))).toBe(spent);
    expect(await g.gateway.services.billing.checkLedger()).toEqual([]);

    // One at a time, requests go on while their bound fits under the cap, and then are refused.
    let total = spent;
    for (let i = 0; i < 6; i += 1) {
      // The previous charge written, so this admission sees its cost rather than its (larger) hold.
      await g.gateway.services.billing.flush();
      const next = await rawPost(g.gateway.origin, '/v1/chat/completions', key, request);
      if (next.status === 402) break;
      expect(next.status).toBe(200);
      total += tomanMicros(serviceOf(next.json).cost);
    }
    expect(total <= capMicros && total + largest > capMicros, `total ${total}, ${summary}`).toBe(true);
    const after = await rawPost(g.gateway.origin, '/v1/chat/completions', key, request);
    expect(after.json.error).toMatchObject({ code: 'spend_limit_reached' });
    expect(before - (await g.balanceMicros(accountId))).toBe(total);
  });
});
