/**
 * Identity injection (spec, Authentication): a short system prompt naming the answering model is
 * prepended, unless the key's `identity_injection` setting is off or the request sends
 * `X-Service-Identity: off|false|0`. Checked on what each fake upstream actually received.
 */
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { lastBody, patchKey, sdkClient, useGatewayWithFakes } from '../helpers/gateway-with-fakes.ts';

const { g, funded } = useGatewayWithFakes();

/** The system text each upstream received for the last request, in its own wire format. */
const receivedSystem = {
  openai(): string[] {
    const messages = lastBody(g.openai).messages as Array<{ role: string; content: string }>;
    return messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content);
  },
  anthropic(): string[] {
    const system = lastBody(g.anthropic).system as string | Array<{ text: string }> | undefined;
    if (system === undefined) return [];
    return typeof system === 'string' ? [system] : system.map((block) => block.text);
  },
  gemini(): string[] {
    const instruction = lastBody(g.gemini).systemInstruction as
      | { parts: Array<{ text: string }> }
      | undefined;
    return instruction?.parts.map((part) => part.text) ?? [];
  },
};

const MODELS = [
  { provider: 'openai', model: 'openai/gpt-4o', name: 'GPT-4o' },
  { provider: 'anthropic', model: 'anthropic/claude-sonnet-4-5', name: 'Claude Sonnet 4.5' },
  { provider: 'gemini', model: 'google/gemini-2.5-flash', name: 'Gemini 2.5 Flash' },
] as const;

async function ask(client: OpenAI, model: string, system?: string) {
  await client.chat.completions.create({
    model,
    messages: [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      { role: 'user', content: 'Who are you?' },
    ],
  });
}

describe.each(MODELS)('identity injection to $provider', ({ provider, model, name }) => {
  it('prepends the identity prompt naming the model, before the client system prompt', async () => {
    await ask(funded.client, model, 'Answer in French.');
    const system = receivedSystem[provider]();
    const joined = system.join('\n');
    expect(joined).toContain(model);
    expect(joined).toContain(name);
    expect(joined.indexOf(model)).toBeLessThan(joined.indexOf('Answer in French.'));
  });

  for (const value of ['off', 'false', '0', 'OFF']) {
    it(`leaves it out for the header X-Service-Identity: ${value}`, async () => {
      const client = sdkClient(g.gateway.origin, funded.key, { 'X-Service-Identity': value });
      await ask(client, model, 'Answer in French.');
      expect(receivedSystem[provider]()).toEqual(['Answer in French.']);
    });
  }

  it('keeps it for other header values', async () => {
    const client = sdkClient(g.gateway.origin, funded.key, { 'X-Service-Identity': 'on' });
    await ask(client, model);
    expect(receivedSystem[provider]().join('\n')).toContain(model);
  });
});

describe('identity injection off by key setting', () => {
  it('stops injecting once the key setting is turned off, at once, and resumes when on', async () => {
    const own = await g.fundedClient();
    await ask(own.client, 'openai/gpt-4o');
    expect(receivedSystem.openai().join('\n')).toContain('openai/gpt-4o');

    await patchKey(g.gateway, own.keyId, { identity_injection: false });
    for (const { provider, model } of MODELS) {
      await ask(own.client, model);
      expect(receivedSystem[provider]()).toEqual([]);
    }
    // Streamed requests too.
    const stream = await own.client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) {
      // drain
    }
    expect(receivedSystem.openai()).toEqual([]);

    await patchKey(g.gateway, own.keyId, { identity_injection: true });
    await ask(own.client, 'openai/gpt-4o');
    expect(receivedSystem.openai().join('\n')).toContain('openai/gpt-4o');
  });

  it('created with identity_injection false, a header cannot turn it on', async () => {
    const own = await g.fundedClient({ settings: { identity_injection: false } });
    const client = sdkClient(g.gateway.origin, own.key, { 'X-Service-Identity': 'on' });
    await ask(client, 'google/gemini-2.5-flash');
    expect(receivedSystem.gemini()).toEqual([]);
  });
});
