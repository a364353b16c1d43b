/**
 * Native streams whose client leaves (docs/native.md, "A client that leaves"), against the fake
 * providers at the catalogue's real prices: a client that read every content event and left
 * before the provider's last events (its usage) is charged what a client that read to the end is
 * charged, once; a stream still running `STREAM_DRAIN_MS` after its client left is cut and charged
 * its reported input and the output it produced.
 */
import { describe, expect, it } from 'vitest';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { anthropicUsage } from '../../shared/src/native/anthropic/usage.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import type { FundedClient } from '../helpers/gateway-with-fakes.ts';
import { useGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';

const DRAIN_MS = 500;
const { g } = useGatewayWithFakes({ env: { STREAM_DRAIN_MS: String(DRAIN_MS) } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface NativeCase {
  readonly name: string;
  readonly fake: 'openai' | 'anthropic';
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly headers: (key: string) => Record<string, string>;
  /** The events that end the stream (and carry its usage), withheld by the fake before its pause. */
  readonly tail: number;
}

const openaiHeaders = (key: string) => ({ authorization: `Bearer ${key}` });
const anthropicHeaders = (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });
const prompt = 'every content event then gone';

const CASES: readonly NativeCase[] = [
  {
    name: '/anthropic messages',
    fake: 'anthropic',
    path: '/anthropic/v1/messages',
    body: {
      model: 'claude-sonnet-4-5',
      max_tokens: 200,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    },
    headers: anthropicHeaders,
    tail: 2,
  },
  {
    name: '/openai chat completions',
    fake: 'openai',
    path: '/openai/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: prompt }],
    },
    headers: openaiHeaders,
    tail: 2,
  },
  {
    name: '/openai responses',
    fake: 'openai',
    path: '/openai/v1/responses',
    body: { model: 'gpt-4o', stream: true, input: prompt },
    headers: openaiHeaders,
    tail: 1,
  },
];

function open(c: NativeCase, key: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${g.gateway.origin}${c.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...c.headers(key) },
    body: JSON.stringify(c.body),
    signal,
  });
}

/** Reads until the provider has been silent for `quietMs` (it paused before its last events). */
async function readUntilQuiet(response: Response, quietMs: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  let text = '';
  for (;;) {
    const read = await Promise.race([reader.read(), sleep(quietMs).then(() => 'quiet' as const)]);
    if (read === 'quiet') break;
    if (read.done) throw new Error(`the stream ended before its pause:\n${text}`);
    text += new TextDecoder().decode(read.value);
  }
  return text;
}

/** The wallet's loss once the account's one charge landed (it must be exactly one). */
async function chargedOnce(client: FundedClient, topUpMicros: bigint, timeoutMs: number): Promise<bigint> {
  const deadline = Date.now() + timeoutMs;
  while ((await g.balanceMicros(client.accountId)) === topUpMicros && Date.now() < deadline) await sleep(50);
  // Time for a (wrong) second charge to land.
  await sleep(300);
  const usage = await fetch(`${g.gateway.origin}/v1/usage?days=1`, {
    headers: { authorization: `Bearer ${client.key}` },
  });
  const rows = ((await usage.json()) as { data: Array<{ requests: number }> }).data;
  expect(rows.map((row) => row.requests)).toEqual([1]);
  return topUpMicros - (await g.balanceMicros(client.accountId));
}

const TOP_UP = 1_000_000n * 1_000_000n;

describe('a native stream whose client read every content event, then left', () => {
  it.each(CASES)('$name: charged what a stream read to its end is charged, once', async (c) => {
    const whole = await g.fundedClient();
    const read = await open(c, whole.key);
    expect(read.status).toBe(200);
    await read.text();
    const full = await chargedOnce(whole, TOP_UP, 5_000);
    expect(full).toBeGreaterThan(0n);

    const own = await g.fundedClient();
    g[c.fake].script.next({ kind: 'pause-before-end', pauseMs: 600, tailEvents: c.tail });
    const controller = new AbortController();
    const response = await open(c, own.key, controller.signal);
    expect(response.status).toBe(200);
    await readUntilQuiet(response, 250);
    controller.abort();
    expect(await chargedOnce(own, TOP_UP, 5_000)).toBe(full);
  });
});

describe('a native stream still running STREAM_DRAIN_MS after its client left', () => {
  it('/anthropic: cut, charged the input it reported and the output it produced', async () => {
    const own = await g.fundedClient();
    g.anthropic.script.next({ kind: 'stall-mid-stream', afterEvents: 4 });
    const abortedBefore = g.anthropic.abortedStreams();
    const controller = new AbortController();
    const response = await open(CASES[0] as NativeCase, own.key, controller.signal);
    const text = await readUntilQuiet(response, 250);
    controller.abort();
    const left = Date.now();
    while (g.anthropic.abortedStreams() === abortedBefore && Date.now() - left < DRAIN_MS + 5_000)
      await sleep(20);
    expect(g.anthropic.abortedStreams()).toBe(abortedBefore + 1);
    expect(Date.now() - left).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    // message_start's usage (input, 1 output token); "Echo: " produced: 2 tokens of output.
    const start = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) => JSON.parse(line.slice(6)) as { type: string; message?: { usage: Record<string, unknown> } },
      )
      .find((event) => event.type === 'message_start');
    const usage = anthropicUsage({ ...start?.message?.usage, output_tokens: Math.ceil('Echo: '.length / 4) });
    const model = loadConfiguredCatalogue(g.gateway.config).get('anthropic/claude-sonnet-4-5');
    if (model === undefined) throw new Error('no anthropic/claude-sonnet-4-5');
    expect(await chargedOnce(own, TOP_UP, 5_000)).toBe(nativeCost(model, usage));
  });
});
