import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamTarget } from '../../../shared/src/providers/chat-types.ts';
import { elevenlabsMediaAdapter } from '../../../shared/src/providers/elevenlabs/index.ts';
import type { SpeechRequest } from '../../../shared/src/providers/media-types.ts';
import { speechSeconds } from '../../fakes/elevenlabs-fake-answers.ts';
import { type ElevenLabsUpstream, startElevenLabsUpstream } from '../../fakes/elevenlabs-upstream.ts';
import { MP3_FRAME_BYTES, MP3_FRAME_SECONDS, silentMp3 } from '../../fakes/media-files.ts';
import { bodyBytes, capability, sendMediaRequest } from '../../helpers/send-media-request.ts';

const { errorMessage, isCredentialRejection } = elevenlabsMediaAdapter;
const speech = capability(elevenlabsMediaAdapter.speech, 'speech');
const transcription = capability(elevenlabsMediaAdapter.transcription, 'transcription');

const KEY = 'sk_test_elevenlabs';
const VOICE = '21m00Tcm4TlvDq8ikWAM';
let upstream: ElevenLabsUpstream;
beforeAll(async () => {
  upstream = await startElevenLabsUpstream({ apiKey: KEY });
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  upstream.script.reset();
});

const tts = (model = 'eleven_multilingual_v2', apiKey = KEY): UpstreamTarget => ({
  baseUrl: upstream.url,
  apiKey,
  nativeModel: model,
});
const stt = (apiKey = KEY): UpstreamTarget => ({ baseUrl: upstream.url, apiKey, nativeModel: 'scribe_v1' });

async function speak(request: SpeechRequest): Promise<Buffer> {
  const response = await sendMediaRequest(speech.request(request, tts()));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('audio/mpeg');
  return bodyBytes(response);
}

/** Every frame starts with the MPEG-1 Layer III sync word 0xFFFB; returns the frame count. */
function frameCount(mp3: Buffer): number {
  expect(mp3.length % MP3_FRAME_BYTES).toBe(0);
  const frames = mp3.length / MP3_FRAME_BYTES;
  for (let i = 0; i < frames; i += 1) expect(mp3.readUInt16BE(i * MP3_FRAME_BYTES)).toBe(0xfffb);
  return frames;
}

describe('ElevenLabs text to speech against the fake API', () => {
  it('answers real MP3 frames whose count follows the text length', async () => {
    const short = frameCount(await speak({ input: 'Hello there, friend.', voice: VOICE }));
    const text = 'A much longer sentence that should take the voice noticeably longer to read aloud.';
    const long = frameCount(await speak({ input: text, voice: VOICE }));
    expect(short).toBe(Math.ceil(speechSeconds('Hello there, friend.') / MP3_FRAME_SECONDS));
    expect(long).toBeGreaterThan(short * 3);
    const metadata = await parseBuffer(await speak({ input: text, voice: VOICE }), {
      mimeType: 'audio/mpeg',
    });
    expect(metadata.format.codec).toMatch(/MPEG 1 Layer 3/i);
    expect(metadata.format.duration).toBeCloseTo(long * MP3_FRAME_SECONDS, 1);
  });

  it('sends speed as voice_settings and gets a faster reading', async () => {
    const text = 'The same words, read at two speeds for the comparison.';
    const normal = frameCount(await speak({ input: text, voice: VOICE }));
    const fast = frameCount(await speak({ input: text, voice: VOICE, speed: 1.2 }));
    expect(fast).toBeLessThan(normal);
    const sent = JSON.parse(upstream.requests.at(-1)?.body.toString('utf8') ?? '{}');
    expect(sent).toEqual({ text, model_id: 'eleven_multilingual_v2', voice_settings: { speed: 1.2 } });
    expect(upstream.requests.at(-1)?.url).toBe(`/v1/text-to-speech/${VOICE}?output_format=mp3_44100_128`);
  });

  it('reads voice_not_found as the client request being rejected', async () => {
    const response = await sendMediaRequest(
      speech.request({ input: 'Hi', voice: 'missingVoiceId000000' }, tts()),
    );
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(errorMessage(400, text)).toBe(
      'ElevenLabs voice_not_found: A voice with the voice_id missingVoiceId000000 was not found.',
    );
    expect(isCredentialRejection?.(400, text)).toBe(false);
  });
});

describe('ElevenLabs speech to text against the fake API', () => {
  const audio = { fileName: 'memo.mp3', contentType: 'audio/mpeg', data: new Uint8Array(silentMp3(20)) };

  it('uploads the file as multipart and keeps only the words', async () => {
    const response = await sendMediaRequest(transcription.request({ audio, language: 'en' }, stt()));
    expect(response.status).toBe(200);
    const result = transcription.response(await response.json());
    // 20 frames × 417 bytes = 8,340 bytes → 1 + floor(8340 / 2000) = 5 words, no audio event.
    expect(result.words).toHaveLength(5);
    expect(result.words.map((word) => word.start)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(result.text.split(' ')).toEqual(result.words.map((word) => word.word));
    expect(result.text).not.toContain('(laughter)');
    // The fake's audio_duration_secs: what it "hears", 8,340 bytes at 16,000 bytes a second.
    expect(result).toMatchObject({ language: 'eng', duration: 0.52 });
    const sent = upstream.requests.at(-1);
    expect(sent?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent?.body.includes(Buffer.from('name="tag_audio_events"'))).toBe(true);
  });

  it('answers words deterministic from the file size', async () => {
    const send = async () =>
      transcription.response(await (await sendMediaRequest(transcription.request({ audio }, stt()))).json());
    expect(await send()).toEqual(await send());
  });
});

describe('ElevenLabs errors over HTTP', () => {
  it('refuses a wrong key with 401 invalid_api_key, a credential rejection', async () => {
    const response = await sendMediaRequest(
      speech.request({ input: 'Hi', voice: VOICE }, tts(undefined, 'sk_wrong')),
    );
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(errorMessage(401, text)).toBe('ElevenLabs invalid_api_key: Invalid API key');
    expect(isCredentialRejection?.(401, text)).toBe(true);
  });

  it('answers scripted statuses with ElevenLabs bodies', async () => {
    upstream.script.next({ kind: 'status', status: 429, retryAfterSeconds: 2 });
    const limited = await sendMediaRequest(speech.request({ input: 'Hi', voice: VOICE }, tts()));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(errorMessage(429, await limited.text())).toMatch(
      /^ElevenLabs too_many_concurrent_requests: Too many/,
    );
    upstream.script.next({ kind: 'status', status: 503 });
    const busy = await sendMediaRequest(
      transcription.request(
        { audio: { fileName: 'a.mp3', contentType: 'audio/mpeg', data: new Uint8Array(silentMp3(1)) } },
        stt(),
      ),
    );
    expect(errorMessage(503, await busy.text())).toMatch(/^ElevenLabs system_busy: /);
    upstream.script.next({ kind: 'status', status: 401 });
    const quota = await sendMediaRequest(speech.request({ input: 'Hi', voice: VOICE }, tts()));
    const text = await quota.text();
    expect(errorMessage(401, text)).toMatch(/^ElevenLabs quota_exceeded: This request exceeds your quota/);
    expect(isCredentialRejection?.(401, text)).toBe(true);
  });

  it('cuts a scripted speech answer mid-way', async () => {
    upstream.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const response = await sendMediaRequest(
      speech.request({ input: 'Hello there, friend.', voice: VOICE }, tts()),
    );
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});
