import { describe, expect, it } from 'vitest';
import {
  soundUsage,
  speechUsage,
  transcriptionUnpriced,
  transcriptionUsage,
} from '../../../../../shared/src/native/elevenlabs/usage.ts';

describe('ElevenLabs usage', () => {
  it('bills text to speech by the code points of its text', () => {
    expect(speechUsage({ text: 'Hello 😀 wörld', model_id: 'eleven_v3' })).toEqual({
      kind: 'characters',
      characters: 13,
    });
    expect(speechUsage({})).toEqual({ kind: 'characters', characters: 0 });
  });

  it('bills speech to text by the longer of the measured and the reported duration', () => {
    // The documented answer (SpeechToTextChunkResponseModel), with audio_duration_secs.
    const answer = {
      language_code: 'en',
      language_probability: 0.98,
      text: 'Hello world!',
      words: [],
      audio_duration_secs: 12.5,
    };
    expect(transcriptionUsage(10, answer)).toEqual({ kind: 'seconds', seconds: 12.5 });
    expect(transcriptionUsage(14.2, answer)).toEqual({ kind: 'seconds', seconds: 14.2 });
    expect(transcriptionUsage(undefined, answer)).toEqual({ kind: 'seconds', seconds: 12.5 });
    expect(transcriptionUsage(undefined, { text: '' })).toBeUndefined();
  });

  it('bills every channel of a multichannel transcription at the full duration', () => {
    const separate = {
      transcripts: [
        { audio_duration_secs: 30, channel_index: 0 },
        { audio_duration_secs: 30, channel_index: 1 },
      ],
    };
    expect(transcriptionUsage(30, separate)).toEqual({ kind: 'seconds', seconds: 60 });
    const combined = {
      audio_duration_secs: 30,
      words: [{ channel_index: 0 }, { channel_index: 1 }, { channel_index: 2 }],
    };
    expect(transcriptionUsage(30, combined)).toEqual({ kind: 'seconds', seconds: 90 });
  });

  it('names the surcharged options a transcription request sets', () => {
    expect(transcriptionUnpriced({ model_id: 'scribe_v1', diarize: 'true' })).toEqual([]);
    expect(
      transcriptionUnpriced({
        entity_detection: 'pii',
        keyterms: '["x"]',
        webhook: 'true',
        detect_speaker_roles: 'false',
        transcript_edit: 'Fix the spelling of names.',
      }),
    ).toEqual([
      { name: 'entity_detection_surcharge', quantity: 1 },
      { name: 'keyterms_surcharge', quantity: 1 },
      { name: 'transcript_edit_surcharge', quantity: 1 },
      { name: 'webhook_transcriptions', quantity: 1 },
    ]);
  });

  it('bills a sound effect by its fixed duration, else by the measured one', () => {
    expect(soundUsage({ text: 'boom', duration_seconds: 2.5 }, 3.1)).toEqual({
      kind: 'seconds',
      seconds: 2.5,
    });
    expect(soundUsage({ text: 'boom', duration_seconds: null }, 3.1)).toEqual({
      kind: 'seconds',
      seconds: 3.1,
    });
    expect(soundUsage({ text: 'boom' }, undefined)).toBeUndefined();
  });
});
