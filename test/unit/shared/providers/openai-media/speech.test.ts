import { describe, expect, it } from 'vitest';
import type { SpeechRequest } from '../../../../../shared/src/providers/media-types.ts';
import { openaiMediaAdapter } from '../../../../../shared/src/providers/openai/media/index.ts';
import {
  openaiSpeechAdapter,
  toSpeechRequestBody,
} from '../../../../../shared/src/providers/openai/media/speech.ts';
import { rejection, target } from './fixtures.ts';

const say = (extra: Partial<SpeechRequest> = {}): SpeechRequest => ({
  input: 'Hello there',
  voice: 'alloy',
  ...extra,
});

describe('OpenAI speech request', () => {
  it('builds a JSON POST to <base>/audio/speech asking for mp3', () => {
    const request = openaiSpeechAdapter.request(say(), target('tts-1', 'https://api.openai.com/v1/'));
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/audio/speech');
    expect(request.headers).toMatchObject({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'tts-1',
      input: 'Hello there',
      voice: 'alloy',
      response_format: 'mp3',
    });
  });

  it('passes instructions and speed to gpt-4o-mini-tts', () => {
    expect(
      toSpeechRequestBody(say({ instructions: 'Speak softly.', speed: 1.5 }), 'gpt-4o-mini-tts'),
    ).toEqual({
      model: 'gpt-4o-mini-tts',
      input: 'Hello there',
      voice: 'alloy',
      instructions: 'Speak softly.',
      speed: 1.5,
      response_format: 'mp3',
    });
  });

  it('sends a custom voice id as {id}', () => {
    expect(toSpeechRequestBody(say({ voice: 'voice_1234' }), 'gpt-4o-mini-tts').voice).toEqual({
      id: 'voice_1234',
    });
  });

  it('refuses instructions for tts-1 and tts-1-hd', () => {
    for (const model of ['tts-1', 'tts-1-hd']) {
      const error = rejection(() => toSpeechRequestBody(say({ instructions: 'Whisper.' }), model));
      expect(error.param).toBe('instructions');
      expect(error.message).toContain(model);
    }
  });

  it('refuses a speed outside 0.25 to 4 and accepts both ends', () => {
    for (const speed of [0.2, 4.5, Number.NaN]) {
      expect(rejection(() => toSpeechRequestBody(say({ speed }), 'tts-1')).param).toBe('speed');
    }
    expect(toSpeechRequestBody(say({ speed: 0.25 }), 'tts-1').speed).toBe(0.25);
    expect(toSpeechRequestBody(say({ speed: 4 }), 'tts-1').speed).toBe(4);
  });

  it("refuses input over OpenAI's 4096 characters", () => {
    expect(toSpeechRequestBody(say({ input: 'a'.repeat(4096) }), 'tts-1').input).toHaveLength(4096);
    expect(rejection(() => toSpeechRequestBody(say({ input: 'a'.repeat(4097) }), 'tts-1')).param).toBe(
      'input',
    );
  });
});

describe('OpenAI media adapter', () => {
  it('has every capability and reads errors like the chat adapter', () => {
    expect(Object.keys(openaiMediaAdapter).sort()).toEqual(
      ['errorMessage', 'images', 'isCredentialRejection', 'speech', 'transcription', 'video'].sort(),
    );
    const body = JSON.stringify({
      error: {
        message: 'Billing hard limit has been reached',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    expect(openaiMediaAdapter.errorMessage(400, body)).toBe('Billing hard limit has been reached');
    expect(openaiMediaAdapter.isCredentialRejection?.(401, '{}')).toBe(true);
  });
});
