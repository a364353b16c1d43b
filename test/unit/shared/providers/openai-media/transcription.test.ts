import { describe, expect, it } from 'vitest';
import { UpstreamProtocolError } from '../../../../../shared/src/providers/chat-types.ts';
import { groqMediaAdapter } from '../../../../../shared/src/providers/groq/media.ts';
import type { MultipartBody, TranscriptionRequest } from '../../../../../shared/src/providers/media-types.ts';
import {
  fromTranscriptionResponse,
  openaiTranscriptionAdapter,
  openaiTranscriptionProfile,
  toTranscriptionForm,
  uploadFileName,
} from '../../../../../shared/src/providers/openai/media/transcription.ts';
import { whisperLanguageCode } from '../../../../../shared/src/providers/openai/media/whisper-languages.ts';
import { gpt4oJsonAnswer, groqVerboseAnswer, rejection, target, whisperVerboseAnswer } from './fixtures.ts';

const audio = (bytes = 8, fileName = 'clip.mp3', contentType = 'audio/mpeg') => ({
  fileName,
  contentType,
  data: new Uint8Array(bytes),
});
const hear = (extra: Partial<TranscriptionRequest> = {}): TranscriptionRequest => ({
  audio: audio(),
  ...extra,
});

function form(body: unknown): MultipartBody {
  if (typeof body !== 'object' || body === null) throw new Error('expected a multipart body');
  return body as MultipartBody;
}

describe('OpenAI transcription request', () => {
  it('builds a multipart POST to <base>/audio/transcriptions; whisper-1 asks verbose_json with word timings', () => {
    const request = openaiTranscriptionAdapter.request(
      hear({ language: 'fr', prompt: 'Bonjour' }),
      target('whisper-1'),
    );
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/audio/transcriptions');
    expect(request.headers).toEqual({ authorization: 'Bearer sk-test', accept: 'application/json' });
    const body = form(request.body);
    expect(body.kind).toBe('multipart');
    expect(body.fields).toEqual({
      model: 'whisper-1',
      response_format: 'verbose_json',
      'timestamp_granularities[]': 'word',
      language: 'fr',
      prompt: 'Bonjour',
    });
    expect(body.file).toEqual({
      field: 'file',
      fileName: 'clip.mp3',
      contentType: 'audio/mpeg',
      data: audio().data,
    });
  });

  it('asks json (the only format) from the gpt-4o transcribe models', () => {
    for (const model of ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe']) {
      expect(toTranscriptionForm(hear(), model, openaiTranscriptionProfile).fields).toEqual({
        model,
        response_format: 'json',
      });
    }
  });

  it('refuses files over 25 MiB for OpenAI, not for Groq', () => {
    const big = hear({ audio: audio(25 * 1024 * 1024 + 1) });
    const error = rejection(() => toTranscriptionForm(big, 'whisper-1', openaiTranscriptionProfile));
    expect(error.param).toBe('file');
    expect(error.message).toContain('25 MB');
    expect(() => groqMediaAdapter.transcription?.request(big, target('whisper-large-v3'))).not.toThrow();
  });

  it('gives a file name the extension of its content type when it has none the upstream knows', () => {
    expect(uploadFileName('clip.MP3', 'audio/mpeg')).toBe('clip.MP3');
    expect(uploadFileName('blob', 'audio/wav')).toBe('blob.wav');
    expect(uploadFileName('voice.note', 'audio/ogg; codecs=opus')).toBe('voice.ogg');
    expect(uploadFileName('', 'audio/mp4')).toBe('audio.m4a');
    expect(uploadFileName('mystery', 'application/octet-stream')).toBe('mystery');
  });
});

describe('OpenAI transcription answer', () => {
  it('reads whisper-1 verbose_json: text, language code, duration, words', () => {
    expect(openaiTranscriptionAdapter.response(whisperVerboseAnswer)).toEqual({
      text: 'The beach was a popular spot on a hot summer day.',
      language: 'en',
      duration: 8.470000267028809,
      words: [
        { word: 'The', start: 0.0, end: 0.23999999463558197 },
        { word: 'beach', start: 0.23999999463558197, end: 0.6000000238418579 },
      ],
    });
  });

  it('reads gpt-4o json: text only (no language, duration or words with token usage)', () => {
    expect(openaiTranscriptionAdapter.response(gpt4oJsonAnswer)).toEqual({
      text: gpt4oJsonAnswer.text,
      language: null,
      duration: null,
      words: [],
    });
  });

  it('takes the duration from a json answer whose usage is of type duration', () => {
    const answer = { text: 'Hi.', usage: { type: 'duration', seconds: 3 } };
    expect(fromTranscriptionResponse(answer, openaiTranscriptionProfile).duration).toBe(3);
  });

  it('throws UpstreamProtocolError on undocumented shapes', () => {
    for (const json of [
      null,
      'text',
      { transcript: 'x' },
      { text: 1 },
      { text: 'a', usage: { type: 'other' } },
    ]) {
      expect(() => openaiTranscriptionAdapter.response(json)).toThrow(UpstreamProtocolError);
    }
  });
});

describe('Groq transcription (composed from the OpenAI transforms)', () => {
  it('asks verbose_json with word timings for every Whisper model at the Groq base URL', () => {
    const groq = groqMediaAdapter.transcription;
    if (groq === undefined) throw new Error('Groq has transcription');
    const request = groq.request(hear(), target('whisper-large-v3-turbo', 'https://api.groq.com/openai/v1'));
    expect(request.url).toBe('https://api.groq.com/openai/v1/audio/transcriptions');
    expect(form(request.body).fields).toEqual({
      model: 'whisper-large-v3-turbo',
      response_format: 'verbose_json',
      'timestamp_granularities[]': 'word',
    });
    expect(groq.response(groqVerboseAnswer)).toEqual({
      text: ' Hello there.',
      language: 'en',
      duration: 3.12,
      words: [
        { word: 'Hello', start: 0.1, end: 0.5 },
        { word: 'there.', start: 0.5, end: 0.9 },
      ],
    });
    expect(Object.keys(groqMediaAdapter).sort()).toEqual([
      'errorMessage',
      'isCredentialRejection',
      'transcription',
    ]);
  });

  it('names Groq in its protocol errors', () => {
    expect(() => groqMediaAdapter.transcription?.response({})).toThrow(/^Groq transcription/);
  });
});

describe('whisperLanguageCode', () => {
  it('maps Whisper language names (any case) and aliases to codes, keeps codes and unknown names', () => {
    expect(whisperLanguageCode('english')).toBe('en');
    expect(whisperLanguageCode('Persian')).toBe('fa');
    expect(whisperLanguageCode('haitian creole')).toBe('ht');
    expect(whisperLanguageCode('Mandarin')).toBe('zh');
    expect(whisperLanguageCode('yue')).toBe('yue');
    expect(whisperLanguageCode('de')).toBe('de');
    expect(whisperLanguageCode('Klingon')).toBe('Klingon');
    expect(whisperLanguageCode('  ')).toBeNull();
  });
});
