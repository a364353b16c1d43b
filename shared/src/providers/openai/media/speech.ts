/**
 * Gateway speech request -> OpenAI `POST <baseUrl>/audio/speech` (JSON in, MP3 bytes out).
 *
 * Shape followed: openai-node `SpeechCreateParams`: `model`, `input` (at most 4096 characters),
 * `voice` (a built-in name such as `alloy`, or a custom voice as `{id: 'voice_…'}`),
 * `instructions` ("does not work with tts-1 or tts-1-hd"), `response_format`
 * (mp3|opus|aac|flac|wav|pcm; always `mp3` here, the gateway serves audio/mpeg), `speed` (0.25 to
 * 4.0). The answer is the audio itself, which the worker streams to storage unparsed.
 *
 * Refused up front (UnsupportedFeatureError) rather than sent to fail or be ignored: input longer
 * than OpenAI's 4096 characters (the gateway allows 10000), `instructions` for tts-1 / tts-1-hd,
 * a speed outside 0.25 to 4.
 */
import { UnsupportedFeatureError, type UpstreamTarget } from '../../chat-types.ts';
import type { MediaHttpRequest, SpeechAdapter, SpeechRequest } from '../../media-types.ts';
import { jsonHeaders, mediaUrl } from './api.ts';

export const OPENAI_SPEECH_MAX_INPUT = 4096;
const MIN_SPEED = 0.25;
const MAX_SPEED = 4;

/** Custom voices are ids (`voice_1234`) and travel as `{id}`; built-in voices as their name. */
function wireVoice(voice: string): string | { id: string } {
  return voice.startsWith('voice_') ? { id: voice } : voice;
}

function takesInstructions(nativeModel: string): boolean {
  return !nativeModel.startsWith('tts-1');
}

/** The upstream JSON body; throws UnsupportedFeatureError for what the model cannot do. */
export function toSpeechRequestBody(request: SpeechRequest, nativeModel: string): Record<string, unknown> {
  if (request.input.length > OPENAI_SPEECH_MAX_INPUT) {
    throw new UnsupportedFeatureError(
      'input',
      `OpenAI speech takes at most ${OPENAI_SPEECH_MAX_INPUT} characters of input.`,
    );
  }
  if (request.instructions !== undefined && !takesInstructions(nativeModel)) {
    throw new UnsupportedFeatureError(
      'instructions',
      `OpenAI ${nativeModel} does not take instructions; use gpt-4o-mini-tts for that.`,
    );
  }
  if (request.speed !== undefined && !(request.speed >= MIN_SPEED && request.speed <= MAX_SPEED)) {
    throw new UnsupportedFeatureError(
      'speed',
      `OpenAI speech speed must be between ${MIN_SPEED} and ${MAX_SPEED}.`,
    );
  }
  return {
    model: nativeModel,
    input: request.input,
    voice: wireVoice(request.voice),
    ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
    ...(request.speed === undefined ? {} : { speed: request.speed }),
    response_format: 'mp3',
  };
}

/** OpenAI text-to-speech (gpt-4o-mini-tts, tts-1, tts-1-hd): MP3 asked for. */
export const openaiSpeechAdapter: SpeechAdapter = {
  request(request: SpeechRequest, target: UpstreamTarget): MediaHttpRequest {
    return {
      method: 'POST',
      url: mediaUrl(target.baseUrl, '/audio/speech'),
      headers: { ...jsonHeaders(target), accept: 'application/octet-stream' },
      body: JSON.stringify(toSpeechRequestBody(request, target.nativeModel)),
    };
  },
};
