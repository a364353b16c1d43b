/**
 * The real gateway (listening on 127.0.0.1, real Redis / MongoDB-wire / S3) in front of fake
 * upstreams that speak each provider's own wire format: OpenAI, Anthropic, Gemini, plus a second
 * OpenAI-compatible fake standing in for xAI with `reasoning_content` (DeepSeek/xAI style), since
 * OpenAI itself never returns reasoning text on Chat Completions.
 * Clients are the official `openai` SDK, as the spec promises existing clients work unchanged.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  ANTHROPIC_FAKE_KEY,
  type AnthropicUpstream,
  type AnthropicUpstreamOptions,
  startAnthropicUpstream,
} from '../fakes/anthropic-upstream.ts';
import { type GeminiUpstream, startGeminiUpstream } from '../fakes/gemini-upstream.ts';
import {
  DEFAULT_FAKE_KEY,
  type OpenAIUpstream,
  type OpenAIUpstreamOptions,
  startOpenAIUpstream,
} from '../fakes/openai-upstream.ts';
import { admin, type CreatedKey, createFundedKey, TEST_ADMIN_TOKEN } from './admin-client.ts';
import type { RecordedRequest } from './fake-upstream.ts';
import { lateBound, made } from './late-bound.ts';
import { type ListeningApp, startListeningApp } from './listening-app.ts';

export const GEMINI_FAKE_KEY = 'test-gemini-key';
export const XAI_FAKE_KEY = 'test-xai-key';

export interface GatewayWithFakesOptions {
  /** Extra gateway environment (overrides the fakes' URLs and keys when it names them). */
  readonly env?: Record<string, string | undefined>;
  readonly openai?: OpenAIUpstreamOptions;
  readonly anthropic?: AnthropicUpstreamOptions;
}

export interface FundedClient extends CreatedKey {
  readonly client: OpenAI;
}

export interface GatewayWithFakes {
  readonly gateway: ListeningApp;
  readonly openai: OpenAIUpstream;
  readonly anthropic: AnthropicUpstream;
  readonly gemini: GeminiUpstream;
  /** OpenAI-compatible fake configured as the xAI upstream, answering with `reasoning_content`. */
  readonly xai: OpenAIUpstream;
  /** A new account with `topUp` Toman (default 1,000,000) and one key, and an SDK client for it. */
  fundedClient(options?: {
    topUp?: number;
    settings?: Record<string, unknown>;
    headers?: Record<string, string>;
  }): Promise<FundedClient>;
  /** Wallet balance in Toman (exact: from µIRT), once the gateway wrote its deferred charges. */
  balance(accountId: string): Promise<number>;
  /** Wallet balance in µIRT, once the gateway wrote its deferred charges. */
  balanceMicros(accountId: string): Promise<bigint>;
  /** Clears every fake's behaviour script. */
  resetScripts(): void;
  close(): Promise<void>;
}

/** Starts the fakes and a gateway whose provider base URLs and keys point at them. */
export async function startGatewayWithFakes(
  options: GatewayWithFakesOptions = {},
): Promise<GatewayWithFakes> {
  const [openai, anthropic, gemini, xai] = await Promise.all([
    startOpenAIUpstream(options.openai),
    startAnthropicUpstream(options.anthropic),
    startGeminiUpstream({ apiKey: GEMINI_FAKE_KEY }),
    startOpenAIUpstream({ apiKey: XAI_FAKE_KEY, reasoningContent: true }),
  ]);
  const gateway = await startListeningApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: options.openai?.apiKey ?? DEFAULT_FAKE_KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: options.anthropic?.apiKey ?? ANTHROPIC_FAKE_KEY,
      GOOGLE_BASE_URL: gemini.url,
      GOOGLE_API_KEY: GEMINI_FAKE_KEY,
      XAI_BASE_URL: xai.url,
      XAI_API_KEY: XAI_FAKE_KEY,
      ...options.env,
    },
  });
  const fakes = [openai, anthropic, gemini, xai];
  const balanceMicros = async (accountId: string): Promise<bigint> => {
    // Charges are written in batches after the answer (group commit): wait for the queued ones.
    await gateway.services.billing.flush();
    return gateway.services.billing.balanceOf(accountId);
  };
  return {
    gateway,
    openai,
    anthropic,
    gemini,
    xai,
    async fundedClient(settings = {}) {
      const key = await createFundedKey(gateway.app, {
        topUp: settings.topUp ?? 1_000_000,
        settings: settings.settings ?? {},
      });
      return { ...key, client: sdkClient(gateway.origin, key.key, settings.headers) };
    },
    balance: async (accountId) => Number(await balanceMicros(accountId)) / 1e6,
    balanceMicros,
    resetScripts() {
      for (const fake of fakes) fake.script.reset();
    },
    async close() {
      await gateway.close();
      await Promise.all(fakes.map((fake) => fake.close()));
    },
  };
}

/** A non-streamed chat request whose client goes away when `controller` is aborted; `pending` settles with the client's error. */
export function abandonable(client: OpenAI, model: string, content: string) {
  const controller = new AbortController();
  const pending = client.chat.completions
    .create({ model, messages: [{ role: 'user', content }] }, { signal: controller.signal })
    .catch((err: unknown) => err);
  return { controller, pending };
}

/** The official SDK pointed at the gateway, never retrying (tests count every request). */
export function sdkClient(origin: string, apiKey: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${origin}/v1`, maxRetries: 0, defaultHeaders: headers });
}

/** Changes a key's settings through the operator API. */
export async function patchKey(
  gateway: ListeningApp,
  keyId: string,
  settings: Record<string, unknown>,
): Promise<void> {
  await admin(gateway.app, 'PATCH', `/keys/${keyId}`, settings);
}

/** The JSON body of a request a fake recorded. */
export function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  if (request === undefined) throw new Error('the fake recorded no such request');
  return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
}

/** The last request a fake recorded, as JSON. */
export function lastBody(fake: { requests: RecordedRequest[] }): Record<string, unknown> {
  return bodyOf(fake.requests.at(-1));
}

/** Toman → µIRT, exactly (costs have at most 6 decimals). */
export const tomanMicros = (irt: number): bigint => BigInt(Math.round(irt * 1e6));

/** The service's cost record on a completion or usage chunk (an extension the SDK types lack). */
export function serviceOf(value: unknown): { model: string; cost: number; currency: string } {
  const service = (value as { service?: { model: string; cost: number; currency: string } }).service;
  if (service === undefined) throw new Error('the answer carries no `service` cost record');
  return service;
}

/** Sends raw HTTP to the gateway (for bodies the SDK would never produce). */
export async function rawPost(
  origin: string,
  path: string,
  apiKey: string,
  body: string | Uint8Array,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    body,
  });
  const text = await response.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: response.status, json, headers: response.headers };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` kept as the string). */
export function sseDataLines(text: string): Array<Record<string, unknown> | '[DONE]'> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Record<string, unknown>)));
}

/** Reads a streamed chat completion to its end: every chunk, and the text of choice 0. */
export async function collectChatStream(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
): Promise<{ text: string; chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] }> {
  let text = '';
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.delta.content ?? '';
  }
  return { text, chunks };
}

/**
 * The gateway and a funded client of a test file: started before its tests, closed after them, the
 * fakes' scripts cleared before each test.
 */
export function useGatewayWithFakes(options: GatewayWithFakesOptions = {}): {
  g: GatewayWithFakes;
  funded: FundedClient;
  client: OpenAI;
} {
  let g: GatewayWithFakes | undefined;
  let funded: FundedClient | undefined;
  beforeAll(async () => {
    g = await startGatewayWithFakes(options);
    funded = await g.fundedClient();
  });
  afterAll(async () => {
    await g?.close();
  });
  beforeEach(() => g?.resetScripts());
  return {
    g: lateBound(() => made(g, 'the gateway')),
    funded: lateBound(() => made(funded, 'the funded client')),
    client: lateBound(() => made(funded, 'the funded client').client),
  };
}
