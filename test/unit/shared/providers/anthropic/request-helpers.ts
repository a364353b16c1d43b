/** Helpers shared by the request-mapping tests. */
import {
  anthropicAdapter,
  UnsupportedFeatureError,
} from '../../../../../shared/src/providers/anthropic/index.ts';
import type { ChatRequest, UpstreamTarget } from '../../../../../shared/src/providers/chat-types.ts';

export const target: UpstreamTarget = {
  baseUrl: 'https://api.anthropic.com',
  apiKey: 'sk-ant-test',
  nativeModel: 'claude-sonnet-4-5',
};

export function build(request: Partial<ChatRequest>, model = 'claude-sonnet-4-5', stream = false) {
  const full: ChatRequest = { model: 'anthropic/x', messages: [{ role: 'user', content: 'Hi' }], ...request };
  // biome-ignore lint/style/noNonNullAssertion: the Anthropic adapter always has chat.
  const chat = anthropicAdapter.chat!;
  return chat.request(full, { ...target, nativeModel: model }, { stream });
}

export function body(request: Partial<ChatRequest>, model?: string): Record<string, unknown> {
  return JSON.parse(build(request, model).body);
}

export function refusal(request: Partial<ChatRequest>, model?: string): UnsupportedFeatureError {
  try {
    build(request, model);
  } catch (err) {
    if (err instanceof UnsupportedFeatureError) return err;
    throw err;
  }
  throw new Error('expected an UnsupportedFeatureError');
}

export const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
