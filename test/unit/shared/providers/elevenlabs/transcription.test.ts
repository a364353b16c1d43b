import { describe, expect, it } from 'vitest';
import {
  UnsupportedFeatureError,
  UpstreamProtocolError,
} from '../../../../../shared/src/providers/chat-types.ts';
import { elevenlabsMediaAdapter } from '../../../../../shared/src/providers/elevenlabs/index.ts';
import type { TranscriptionRequest } from '../../../../../shared/src/providers/media-types.ts';

const { transcription } = elevenlabsMediaAdapter;
if (!transcription) throw new Error('ElevenLabs has a transcription capability');

const target = { baseUrl: 'https://api.elevenlabs.io', apiKey: 'sk_test', nativeModel: 'scribe_v1' };
const audio = {
  fileName: 'memo.mp3',
  contentType: 'audio/mpeg',
  data: Uint8Array.of(0xff, 0xfb, 0x90, 0xc4),
};

/** A Scribe answer as documented: words interleaved with spacing, and an audio event. */
const SCRIBE_ANSWER = {
  language_code: 'eng',
  language_probability: 0.98,
  text: 'Hello world (laughter)',
  words: [
    { text: 'Hello', start: 0.12, end: 0.5, type: 'word', speaker_id: 'speaker_0', logprob: -0.1 },
    { text: ' ', start: 0.5, end: 0.55, type: 'spacing', logprob: 0 },
    { text: 'world', start: 0.55, end: 0.98, type: 'word', speaker_id: 'speaker_0', logprob: -0.2 },
    { text: ' ', start: 0.98, end: 1.0, type: 'spacing' },
    { text: '(laughter)', start: 1.0, end: 1.6, type: 'audio_event' },
  ],
};

describe('ElevenLabs speech to text request', () => {
  it('posts a multipart form with the model, the file and no audio-event tags', () => {
    const built = transcription.request({ audio }, target);
    expect(built.method).toBe('POST');
    expect(built.url).toBe('https://api.elevenlabs.io/v1/speech-to-text');
    expect(built.headers).toEqual({ 'xi-api-key': 'sk_test', accept: 'application/json' });
    expect(built.body).toEqual({
      kind: 'multipart',
      fields: { model_id: 'scribe_v1', tag_audio_events: 'false', timestamps_granularity: 'word' },
      file: { field: 'file', fileName: 'memo.mp3', contentType: 'audio/mpeg', data: audio.data },
    });
  });

  it('sends the language as language_code', () => {
    const built = transcription.request({ audio, language: 'fr' }, target);
    expect(built.body).toMatchObject({ fields: { language_code: 'fr' } });
  });

  it('refuses a prompt, which Scribe has no field for', () => {
    const request: TranscriptionRequest = { audio, prompt: 'Names: Ada, Grace' };
    expect(() => transcription.request(request, target)).toThrow(UnsupportedFeatureError);
    expect(transcription.request({ audio, prompt: '' }, target).method).toBe('POST');
  });
});

describe('ElevenLabs speech to text answer', () => {
  it('keeps the text and language and only the words of type word', () => {
    expect(transcription.response(SCRIBE_ANSWER)).toEqual({
      text: 'Hello world (laughter)',
      language: 'eng',
      duration: null,
      words: [
        { word: 'Hello', start: 0.12, end: 0.5 },
        { word: 'world', start: 0.55, end: 0.98 },
      ],
    });
  });

  it('takes the duration ElevenLabs reports (audio_duration_secs), when it reports one', () => {
    expect(transcription.response({ ...SCRIBE_ANSWER, audio_duration_secs: 12.5 })).toMatchObject({
      duration: 12.5,
    });
    expect(transcription.response({ ...SCRIBE_ANSWER, audio_duration_secs: null }).duration).toBeNull();
    expect(() => transcription.response({ ...SCRIBE_ANSWER, audio_duration_secs: -1 })).toThrow(
      /audio_duration_secs/,
    );
  });

  it('rejects undocumented answers', () => {
    expect(() => transcription.response({ text: 'hi' })).toThrow(UpstreamProtocolError);
    expect(() => transcription.response({ ...SCRIBE_ANSWER, words: 'none' })).toThrow(/words/);
    const untimed = { ...SCRIBE_ANSWER, words: [{ text: 'Hello', type: 'word' }] };
    expect(() => transcription.response(untimed)).toThrow(/timestamps/);
  });
});
