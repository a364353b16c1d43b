/**
 * The native simulator: the offline `demo` provider speaking each native API's wire format, so
 * that a native request routed to `demo` (a demo model, or any model under `SIMULATE_PROVIDERS`)
 * is answered in the process, relayed, billed and logged like a provider's answer. The request's
 * upstream path tells which API it is (their paths do not overlap: OpenAI's base URL ends in
 * `/v1`, so its paths have no version; the others' do). Docs: docs/native.md.
 */
import type { ForwardRequest, UpstreamResponse } from '../../upstream/upstream-client.ts';
import { isObject } from '../native-usage.ts';
import { simulateAnthropic } from './anthropic-simulator.ts';
import { simulateElevenLabs } from './elevenlabs-simulator.ts';
import { simulateGemini } from './gemini-simulator.ts';
import { simulateChatCompletions, simulateOpenAIEmbeddings } from './openai-simulator.ts';
import { simulateResponses } from './responses-simulator.ts';
import { simulatedJson } from './simulated-response.ts';

/** The base URL of a simulated route: never connected to (the simulator answers in the process). */
export const SIMULATOR_BASE_URL = 'http://native-simulator.invalid';

/** Answers a native request sent to the simulator as its provider would. */
export async function simulateNative(request: ForwardRequest): Promise<UpstreamResponse> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (/^\/v1\/(text-to-speech|sound-generation|speech-to-text)(\/|$)/.test(path)) {
    return simulateElevenLabs(path, url.searchParams, request.headers['content-type'], request.body);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(request.body).toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!isObject(body)) return simulatedJson({ error: { message: 'The body must be a JSON object.' } }, 400);
  if (path.startsWith('/v1/messages')) return simulateAnthropic(path, body);
  if (/^\/(v1|v1beta)\/models\//.test(path)) return simulateGemini(path, url.search, body);
  if (path === '/responses') return simulateResponses(body);
  if (path === '/chat/completions') return simulateChatCompletions(body);
  if (path === '/embeddings') return simulateOpenAIEmbeddings(body);
  return simulatedJson({ error: { message: `The demo simulator does not serve ${path}.` } }, 404);
}
