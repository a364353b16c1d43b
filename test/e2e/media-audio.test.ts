/**
 * Speech and transcription end to end: the SDK's `audio.speech.create` and
 * `audio.transcriptions.create` (with `toFile`) through the api, a worker process, S3 and the fake
 * OpenAI, Groq and ElevenLabs upstreams. Speech answers MP3 bytes with its cost in `X-Service-Cost`;
 * transcription answers the spec's TranscriptionResponse with the duration measured from the
 * upload. The wallet goes down by exactly the reported cost.
 */
import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { mediaCostMicros } from '../../shared/src/billing/media-pricing.ts';
import type { ModelPricing } from '../../shared/src/catalogue/catalogue.ts';
import { loadCatalogue } from '../../shared/src/catalogue/load-catalogue.ts';
import { mp3FrameCount, mp3OfFrames, mp3OfSeconds } from '../../shared/src/file-formats/builders/mp3.ts';
import { oggOpusOfSeconds } from '../../shared/src/file-formats/builders/ogg.ts';
import { wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import { webmOpusOfSeconds } from '../../shared/src/file-formats/builders/webm.ts';
import { MP3_FRAME_BYTES, MP3_FRAME_HEADER, MP3_FRAME_SECONDS, silentMp3 } from '../fakes/media-files.ts';
import {
  costMicros,
  ELEVENLABS_FAKE_KEY,
  GROQ_FAKE_KEY,
  serviceOf,
  useMediaGateway,
} from '../helpers/media-gateway.ts';

const { m, user } = useMediaGateway({}, { WORKER_QUEUES: 'speech,transcription' });

const VOICE_ID = '21m00Tcm4TlvDq8ikWAM';

interface Transcript {
  text: string;
  language: string;
  duration: number;
  words: Array<Record<string, unknown>>;
}

async function speak(params: { model: string; voice: string; input: string }) {
  const before = await m.balanceMicros(user.accountId);
  const response = await user.client.audio.speech.create(params);
  expect(response.headers.get('content-type')).toBe('audio/mpeg');
  expect(response.headers.get('x-service-currency')).toBe('IRT');
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.subarray(0, 4)).toEqual(MP3_FRAME_HEADER);
  expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
  const cost = response.headers.get('x-service-cost');
  expect(Number(cost)).toBeGreaterThan(0);
  expect(before - (await m.balanceMicros(user.accountId))).toBe(costMicros(cost));
  return { bytes, cost: costMicros(cost) };
}

const catalogue = loadCatalogue();

interface Upload {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly type: string;
}

const wav = (seconds: number): Upload => ({
  bytes: wavOfSeconds(seconds),
  name: 'speech.wav',
  type: 'audio/wav',
});
const mp3 = (frames: number): Upload => ({
  bytes: silentMp3(frames),
  name: 'speech.mp3',
  type: 'audio/mpeg',
});

/**
 * Transcribes an upload; checks the TranscriptionResponse shape, that `duration` (the billing
 * basis) is `expectedSeconds`, and that the wallet went down by exactly `service.cost`, which is
 * the catalogue's per-minute price of that duration.
 */
async function transcribe(model: string, upload: Upload, expectedSeconds: number, language?: string) {
  const before = await m.balanceMicros(user.accountId);
  const file = await toFile(Buffer.from(upload.bytes), upload.name, { type: upload.type });
  const result = (await user.client.audio.transcriptions.create({
    model,
    file,
    ...(language === undefined ? {} : { language }),
  })) as unknown as Transcript;
  expect(typeof result.text).toBe('string');
  expect(result.text.length).toBeGreaterThan(0);
  expect(typeof result.language).toBe('string');
  expect(Array.isArray(result.words)).toBe(true);
  expect(result.duration).toBeCloseTo(expectedSeconds, 2);
  const service = serviceOf(result);
  expect(service).toMatchObject({ model, currency: 'IRT' });
  const pricing = catalogue.get(model)?.pricing;
  expect(pricing?.unit).toBe('minute');
  expect(costMicros(service.cost)).toBe(mediaCostMicros(pricing as ModelPricing, result.duration));
  expect(before - (await m.balanceMicros(user.accountId))).toBe(costMicros(service.cost));
  return { result, cost: costMicros(service.cost) };
}

describe('POST /v1/audio/speech through a worker process', () => {
  it('OpenAI gpt-4o-mini-tts: MP3 bytes from the provider, cost in X-Service-Cost', async () => {
    const input = 'The quick brown fox jumps over the lazy dog.';
    const { bytes } = await speak({ model: 'openai/gpt-4o-mini-tts', voice: 'coral', input });
    expect(bytes.length % MP3_FRAME_BYTES).toBe(0);
    const upstream = JSON.parse(m.fakes.openai.requests.at(-1)?.body.toString() ?? '{}');
    expect(upstream).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'coral', input });
  });

  it('prices per character: twice the input costs twice as much', async () => {
    const short = await speak({ model: 'openai/tts-1', voice: 'alloy', input: 'a'.repeat(500) });
    const long = await speak({ model: 'openai/tts-1', voice: 'alloy', input: 'a'.repeat(1000) });
    expect(long.cost).toBe(2n * short.cost);
  });

  it('ElevenLabs with a voice id: the id goes in the provider path', async () => {
    await speak({
      model: 'elevenlabs/eleven_multilingual_v2',
      voice: VOICE_ID,
      input: 'Hello from ElevenLabs.',
    });
    const request = m.fakes.elevenlabs.requests.at(-1);
    expect(request?.url).toBe(`/v1/text-to-speech/${VOICE_ID}?output_format=mp3_44100_128`);
    expect(request?.headers['xi-api-key']).toBe(ELEVENLABS_FAKE_KEY);
    expect(JSON.parse(request?.body.toString() ?? '{}')).toMatchObject({
      text: 'Hello from ElevenLabs.',
      model_id: 'eleven_multilingual_v2',
    });
  });
});

describe('POST /v1/audio/transcriptions through a worker process', () => {
  it('OpenAI whisper-1: text, language, words; the duration measured from the upload', async () => {
    const openaiCalls = m.fakes.openai.requests.length;
    // 128 kbps MP3: the fake hears bytes / 16000 s, a little less than the frames last.
    const { result } = await transcribe('openai/whisper-1', mp3(115), 115 * MP3_FRAME_SECONDS);
    // Whisper names the language ("english"); the gateway answers its code.
    expect(result.language).toBe('en');
    expect(result.words.length).toBeGreaterThan(0);
    expect(m.fakes.openai.requests.length).toBe(openaiCalls + 1);
    const request = m.fakes.openai.requests.at(-1);
    expect(request?.url).toBe('/v1/audio/transcriptions');
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data/);
  });

  it('bills the provider-reported duration when it is longer than the measured one', async () => {
    // A 16 kHz 16-bit WAV is 32,000 bytes a second: the fake reports twice its length.
    await transcribe('openai/whisper-1', wav(3), 6);
  });

  it('a twice longer upload costs twice as much', async () => {
    const short = await transcribe('openai/whisper-1', wav(2), 4);
    const long = await transcribe('openai/whisper-1', wav(4), 8);
    expect(long.cost).toBe(2n * short.cost);
  });

  it('Groq whisper-large-v3 on the OpenAI-format fake with a Groq key', async () => {
    const openaiCalls = m.fakes.openai.requests.length;
    await transcribe('groq/whisper-large-v3', wav(2), 4);
    const request = m.fakes.groq.requests.at(-1);
    expect(request?.url).toBe('/v1/audio/transcriptions');
    expect(request?.headers.authorization).toBe(`Bearer ${GROQ_FAKE_KEY}`);
    expect(request?.body.toString('latin1')).toContain('whisper-large-v3');
    expect(m.fakes.openai.requests.length).toBe(openaiCalls);
  });

  it('ElevenLabs scribe_v1: bills its audio_duration_secs when longer than the measured one', async () => {
    // The fake hears bytes / 16,000 s: twice the WAV's length, as for Whisper above.
    const { result } = await transcribe('elevenlabs/scribe_v1', wav(2), 4, 'en');
    expect(result.words.length).toBeGreaterThan(0);
    expect(result.words.every((word) => word.word !== ' ')).toBe(true);
    const request = m.fakes.elevenlabs.requests.at(-1);
    expect(request?.url).toBe('/v1/speech-to-text');
    expect(request?.headers['xi-api-key']).toBe(ELEVENLABS_FAKE_KEY);
    expect(request?.body.toString('latin1')).toContain('scribe_v1');
  });

  it('leaves one charge per delivered job and a consistent ledger', async () => {
    const charges = await m.charges(user.accountId);
    expect(charges).toHaveLength(10);
    expect(new Set(charges.map((c) => c.id)).size).toBe(10);
    expect(charges.filter((c) => c.id.startsWith('stt_'))).toHaveLength(6);
    expect(charges.filter((c) => c.id.startsWith('tts_'))).toHaveLength(4);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });
});

describe('a transcription is billed the audio sent, not what its header states', () => {
  it('a WAV whose header says 2 bytes of samples is billed its 30 s', async () => {
    // 4 kHz, 16-bit: 8,000 bytes a second, so the fake hears 15 s (bytes / 16000) and the gateway's
    // measure decides.
    const lying = Buffer.from(wavOfSeconds(30, { sampleRate: 4000 }));
    lying.writeUInt32LE(2, 40);
    await transcribe('openai/whisper-1', { bytes: lying, name: 'memo.wav', type: 'audio/wav' }, 30);
    expect(m.fakes.openai.requests.at(-1)?.body.includes(lying)).toBe(true);
  });

  it('Opus in Ogg and in WebM stating 1 s (a last granule, a Duration) is billed its 30 s of packets', async () => {
    const ogg = Buffer.from(oggOpusOfSeconds(30, { statedSeconds: 1 }));
    await transcribe('openai/whisper-1', { bytes: ogg, name: 'memo.ogg', type: 'audio/ogg' }, 30);
    const webm = Buffer.from(webmOpusOfSeconds(30, { statedSeconds: 1 }));
    await transcribe('openai/whisper-1', { bytes: webm, name: 'memo.webm', type: 'audio/webm' }, 30);
  });

  it('an MP3 whose first frames are 320 kbps, then 30 s at 32 kbps, is billed its frames', async () => {
    const mixed = Buffer.concat([
      mp3OfFrames(8, { bitrateKbps: 320 }),
      mp3OfSeconds(30, { bitrateKbps: 32 }),
    ]);
    const frames = mp3FrameCount(30) + 8;
    await transcribe(
      'openai/whisper-1',
      { bytes: mixed, name: 'memo.mp3', type: 'audio/mpeg' },
      (frames * 1152) / 44100,
    );
  });
});
