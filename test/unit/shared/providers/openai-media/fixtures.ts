/**
 * Upstream answers as OpenAI and Groq document them (API reference examples; openai-node types),
 * and a helper to catch the adapters' UnsupportedFeatureError.
 */
import {
  UnsupportedFeatureError,
  type UpstreamTarget,
} from '../../../../../shared/src/providers/chat-types.ts';

export const target = (nativeModel: string, baseUrl = 'https://api.openai.com/v1'): UpstreamTarget => ({
  baseUrl,
  apiKey: 'sk-test',
  nativeModel,
});

export function rejection(run: () => unknown): UnsupportedFeatureError {
  try {
    run();
  } catch (error) {
    if (error instanceof UnsupportedFeatureError) return error;
    throw error;
  }
  throw new Error('expected an UnsupportedFeatureError');
}

/** Create image, gpt-image-1 (reference example). */
export const gptImageAnswer = {
  created: 1713833628,
  data: [{ b64_json: 'iVBORw0KGgo=' }],
  usage: {
    total_tokens: 100,
    input_tokens: 50,
    output_tokens: 50,
    input_tokens_details: { text_tokens: 10, image_tokens: 40 },
  },
};

/** Create image, dall-e-3 with `response_format: b64_json`. */
export const dallE3Answer = {
  created: 1699228800,
  data: [{ b64_json: 'iVBORw0KGgo=', revised_prompt: 'A photograph of a white Siamese cat.' }],
};

/** Create transcription, whisper-1, verbose_json with word timestamps (reference example). */
export const whisperVerboseAnswer = {
  task: 'transcribe',
  language: 'english',
  duration: 8.470000267028809,
  text: 'The beach was a popular spot on a hot summer day.',
  words: [
    { word: 'The', start: 0.0, end: 0.23999999463558197 },
    { word: 'beach', start: 0.23999999463558197, end: 0.6000000238418579 },
  ],
  usage: { type: 'duration', seconds: 9 },
};

/** Create transcription, gpt-4o-transcribe, json (reference example). */
export const gpt4oJsonAnswer = {
  text: 'Imagine the wildest idea that you have ever had, and you are curious about how it might scale.',
  usage: {
    type: 'tokens',
    input_tokens: 14,
    input_token_details: { text_tokens: 0, audio_tokens: 14 },
    output_tokens: 45,
    total_tokens: 59,
  },
};

/** Groq transcription, verbose_json (its reference: OpenAI's shape plus `x_groq`). */
export const groqVerboseAnswer = {
  task: 'transcribe',
  language: 'English',
  duration: 3.12,
  text: ' Hello there.',
  segments: [{ id: 0, seek: 0, start: 0, end: 3.12, text: ' Hello there.' }],
  words: [
    { word: 'Hello', start: 0.1, end: 0.5 },
    { word: 'there.', start: 0.5, end: 0.9 },
  ],
  x_groq: { id: 'req_01j0example' },
};

/** Create video / retrieve video (reference example), with the status set per test. */
export function soraVideo(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'video_68d7512d07848190b3e45da0ecbebcde004da08e1e0678d5',
    object: 'video',
    created_at: 1758941485,
    status,
    model: 'sora-2-pro',
    progress: 0,
    seconds: '8',
    size: '1280x720',
    completed_at: null,
    expires_at: null,
    error: null,
    remixed_from_video_id: null,
    ...extra,
  };
}
