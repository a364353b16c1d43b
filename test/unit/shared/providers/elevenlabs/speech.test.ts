import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '../../../../../shared/src/providers/chat-types.ts';
import { elevenlabsMediaAdapter } from '../../../../../shared/src/providers/elevenlabs/index.ts';
import type { SpeechRequest } from '../../../../../shared/src/providers/media-types.ts';

const { speech } = elevenlabsMediaAdapter;
if (!speech) throw new Error('ElevenLabs has a speech capability');

const VOICE = '21m00Tcm4TlvDq8ikWAM';
const target = {
  baseUrl: 'https://api.elevenlabs.io',
  apiKey: 'sk_test',
  nativeModel: 'eleven_multilingual_v2',
};
const say = (extra: Partial<SpeechRequest> = {}): SpeechRequest => ({
  input: 'Hello there',
  voice: VOICE,
  ...extra,
});

function refusedParam(request: SpeechRequest): string | null {
  try {
    speech?.request(request, target);
  } catch (err) {
    expect(err).toBeInstanceOf(UnsupportedFeatureError);
    return (err as UnsupportedFeatureError).param;
  }
  throw new Error('expected UnsupportedFeatureError');
}

describe('ElevenLabs text to speech request', () => {
  it('posts to the voice with MP3 44.1 kHz 128 kbps, the key header and the model', () => {
    const built = speech.request(say(), target);
    expect(built).toEqual({
      method: 'POST',
      url: `https://api.elevenlabs.io/v1/text-to-speech/${VOICE}?output_format=mp3_44100_128`,
      headers: { 'xi-api-key': 'sk_test', accept: 'audio/mpeg', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello there', model_id: 'eleven_multilingual_v2' }),
    });
  });

  it('sends speed as voice_settings.speed within 0.7 to 1.2, and refuses values outside', () => {
    for (const speed of [0.7, 1, 1.2]) {
      const body = JSON.parse(speech.request(say({ speed }), target).body as string);
      expect(body.voice_settings).toEqual({ speed });
    }
    for (const speed of [0.69, 1.21, 4, 0.25, Number.NaN]) expect(refusedParam(say({ speed }))).toBe('speed');
  });

  it('refuses instructions and voice names', () => {
    expect(refusedParam(say({ instructions: 'Speak cheerfully' }))).toBe('instructions');
    expect(speech.request(say({ instructions: '' }), target).method).toBe('POST');
    for (const voice of ['alloy', 'Rachel', '21m00Tcm4TlvDq8ikWA/', '../../v1/user']) {
      expect(refusedParam(say({ voice }))).toBe('voice');
    }
  });

  it('tolerates a trailing slash in the configured base URL', () => {
    const built = speech.request(say(), { ...target, baseUrl: 'https://api.elevenlabs.io/' });
    expect(built.url.startsWith('https://api.elevenlabs.io/v1/text-to-speech/')).toBe(true);
  });
});

describe('ElevenLabs errors', () => {
  const { errorMessage, isCredentialRejection } = elevenlabsMediaAdapter;

  it('reads {detail: {status, message}}', () => {
    const body = JSON.stringify({
      detail: { status: 'voice_not_found', message: 'A voice with the voice_id abc was not found.' },
    });
    expect(errorMessage(400, body)).toBe(
      'ElevenLabs voice_not_found: A voice with the voice_id abc was not found.',
    );
  });

  it('reads {detail: "…"} and the FastAPI validation list', () => {
    expect(errorMessage(404, JSON.stringify({ detail: 'Not Found' }))).toBe('ElevenLabs HTTP 404: Not Found');
    const list = JSON.stringify({
      detail: [
        {
          loc: ['body', 'voice_settings', 'speed'],
          msg: 'Input should be less than or equal to 1.2',
          type: 'less_than_equal',
        },
      ],
    });
    expect(errorMessage(422, list)).toBe(
      'ElevenLabs validation_error: body.voice_settings.speed: Input should be less than or equal to 1.2',
    );
  });

  it('never leaks keys, URLs or raw bodies', () => {
    const body = JSON.stringify({
      detail: {
        status: 'invalid_api_key',
        message: 'Invalid API key sk_0123456789abcdef0123456789abcdef, see https://elevenlabs.io/app',
      },
    });
    const message = errorMessage(401, body);
    expect(message).toContain('ElevenLabs invalid_api_key: Invalid API key');
    expect(message).not.toContain('sk_0123');
    expect(message).not.toContain('elevenlabs.io');
    expect(errorMessage(502, '<html>Bad gateway at lb-7.internal</html>')).toBe('ElevenLabs HTTP 502');
    expect(errorMessage(500, JSON.stringify({ detail: { status: 'Weird Status!', message: 'x' } }))).toBe(
      'ElevenLabs HTTP 500: x',
    );
  });

  it('treats 401 and 403 as the gateway credentials being refused', () => {
    expect(isCredentialRejection?.(401, '{}')).toBe(true);
    expect(isCredentialRejection?.(403, '{}')).toBe(true);
    expect(isCredentialRejection?.(400, '{}')).toBe(false);
    expect(isCredentialRejection?.(429, '{}')).toBe(false);
  });
});
