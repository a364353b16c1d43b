/**
 * Upstream providers the gateway knows how to call. A catalogue route must name one of these.
 * `demo` is the built-in offline simulator (deterministic answers for every capability).
 */
export const PROVIDER_IDS = [
  'openai',
  'anthropic',
  'google',
  'deepseek',
  'xai',
  'mistral',
  'groq',
  'elevenlabs',
  'runway',
  'demo',
] as const;

export type ProviderId = (typeof PROVIDER_IDS)[number];

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}
