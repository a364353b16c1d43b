import type { FastifyInstance } from 'fastify';
import type { NativeDeps } from '../native-deps.ts';
import { soundRoutes } from './sound.routes.ts';
import { speechRoutes } from './speech.routes.ts';
import { transcriptionRoutes } from './transcription.routes.ts';

/**
 * ElevenLabs' own API under `/elevenlabs` (the ElevenLabs SDKs: base URL `<gateway>/elevenlabs`,
 * the gateway key as `apiKey`, sent in `xi-api-key`): text to speech (whole or `/stream`), sound
 * generation and speech to text. Bodies and query go upstream as sent but for the model name and
 * the gateway key; audio comes back byte for byte as it arrives, the transcript whole, each billed
 * as docs/native.md tabulates (characters, seconds produced, seconds heard).
 */
export async function elevenlabsNativeRoutes(app: FastifyInstance, deps: NativeDeps): Promise<void> {
  await speechRoutes(app, deps);
  await soundRoutes(app, deps);
  await transcriptionRoutes(app, deps);
}
