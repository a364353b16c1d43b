/**
 * ElevenLabs' own API through the gateway (`/elevenlabs`), with the official ElevenLabs SDK, against
 * the fake ElevenLabs upstream: bodies, queries and audio pass through unchanged but for the model
 * name and the credential, on the same keys, limits and wallet as `/v1`; text to speech is billed
 * by characters, sound generation by seconds produced, speech to text by seconds heard.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { irtToMicros } from '../../shared/src/billing/money.ts';
import { loadConfiguredCatalogue } from '../../shared/src/catalogue/configured-catalogue.ts';
import { probeAudio } from '../../shared/src/file-formats/audio-probe.ts';
import { mp3FrameCount, mp3OfFrames, mp3OfSeconds } from '../../shared/src/file-formats/builders/mp3.ts';
import { oggOpusOfSeconds } from '../../shared/src/file-formats/builders/ogg.ts';
import { wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import { webmOpusOfSeconds } from '../../shared/src/file-formats/builders/webm.ts';
import { nativeCost } from '../../shared/src/native/native-cost.ts';
import type { NativeUsage } from '../../shared/src/native/native-usage.ts';
import { speechMp3 } from '../fakes/elevenlabs-fake-answers.ts';
import { type ElevenLabsUpstream, startElevenLabsUpstream } from '../fakes/elevenlabs-upstream.ts';
import { MP3_FRAME_BYTES } from '../fakes/media-files.ts';
import { type CreatedKey, createFundedKey, TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import type { RecordedRequest } from '../helpers/fake-upstream.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';

const FAKE_KEY = 'test-elevenlabs-key';
const VOICE = '21m00Tcm4TlvDq8ikWAM';
const SPEECH = 'elevenlabs/eleven_multilingual_v2';
const SOUND = 'elevenlabs/sound-effects';
const SCRIBE = 'elevenlabs/scribe_v1';

let fake: ElevenLabsUpstream;
let gateway: ListeningApp;
let funded: CreatedKey;

/**
 * The built-in catalogue, with a second ElevenLabs route on the speech, sound and transcription
 * models (fallback is tried within one provider).
 */
function catalogueWithSecondRoutes(): string {
  const file = JSON.parse(
    readFileSync(new URL('../../shared/src/catalogue/models.json', import.meta.url), 'utf8'),
  ) as { models: Array<{ id: string; routes: Array<{ provider: string; native_id: string }> }> };
  const second: Record<string, string> = {
    [SPEECH]: 'eleven_multilingual_v2',
    [SOUND]: 'eleven_text_to_sound_v2',
    [SCRIBE]: 'scribe_v2',
  };
  for (const model of file.models) {
    const nativeId = second[model.id];
    if (nativeId !== undefined) model.routes.push({ provider: 'elevenlabs', native_id: nativeId });
  }
  const path = join(mkdtempSync(join(tmpdir(), 'elevenlabs-catalogue-')), 'models.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

/** A gateway in front of `fake` (its key `apiKey`), on the catalogue with second routes. */
function startGateway(upstream: ElevenLabsUpstream, env: Record<string, string | undefined> = {}) {
  return startListeningApp({
    env: {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      CATALOGUE_PATH: catalogueWithSecondRoutes(),
      ELEVENLABS_BASE_URL: upstream.url,
      ELEVENLABS_API_KEY: FAKE_KEY,
      ...env,
    },
  });
}

beforeAll(async () => {
  fake = await startElevenLabsUpstream({ apiKey: FAKE_KEY });
  gateway = await startGateway(fake, { UPSTREAM_HEADERS_TIMEOUT_MS: '1000', STREAM_DRAIN_MS: '400' });
  funded = await fundedKey();
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
beforeEach(() => fake.script.reset());

function fundedKey(topUp = 1_000_000, settings: Record<string, unknown> = {}): Promise<CreatedKey> {
  return createFundedKey(gateway.app, { topUp, settings: { rate_limit: 3000, ...settings } });
}

async function balanceMicros(app: ListeningApp, accountId: string): Promise<bigint> {
  await app.services.billing.flush();
  return app.services.billing.balanceOf(accountId);
}

function client(key: string): ElevenLabsClient {
  return new ElevenLabsClient({ apiKey: key, baseUrl: `${gateway.origin}/elevenlabs`, maxRetries: 0 });
}

/** What the catalogue prices a usage at on `modelId`, in µIRT. */
function costOf(modelId: string, usage: NativeUsage): bigint {
  const model = loadConfiguredCatalogue(gateway.config).get(modelId);
  if (model === undefined) throw new Error(`no model ${modelId}`);
  return nativeCost(model, usage);
}

const characters = (text: string): NativeUsage => ({ kind: 'characters', characters: [...text].length });
const seconds = (value: number): NativeUsage => ({ kind: 'seconds', seconds: value });

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

function post(path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${gateway.origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'xi-api-key': key }),
      ...headers,
    },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly trailers: NodeJS.Dict<string>;
}

/** A request over node:http, which reads trailers (fetch does not) and sends paths as written. */
function raw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    const req = httpRequest(
      { hostname, port, path, method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            trailers: res.trailers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A multipart body as the web `FormData` encodes it. */
async function formBody(fields: Record<string, string>, file?: { bytes: Uint8Array; name: string }) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file !== undefined) form.append('file', new Blob([file.bytes]), file.name);
  const request = new Request('http://form.invalid/', { method: 'POST', body: form });
  return {
    body: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  };
}

async function transcribe(key: string, fields: Record<string, string>, audio?: Uint8Array) {
  const form = await formBody(fields, audio === undefined ? undefined : { bytes: audio, name: 'memo.wav' });
  return post('/elevenlabs/v1/speech-to-text', key, form.body, { 'content-type': form.contentType });
}

/** A 16-bit stereo WAV at 16 kHz lasting `duration` seconds (the mono builder's header re-stated). */
function stereoWav(duration: number): Uint8Array {
  const wav = Buffer.from(wavOfSeconds(duration * 2));
  wav.writeUInt16LE(2, 22);
  wav.writeUInt32LE(16000 * 4, 28);
  wav.writeUInt16LE(4, 32);
  return new Uint8Array(wav);
}

const lastRequest = (): RecordedRequest => {
  const last = fake.requests.at(-1);
  if (last === undefined) throw new Error('the fake received nothing');
  return last;
};
const lastJson = () => JSON.parse(lastRequest().body.toString('utf8')) as Record<string, unknown>;

describe('ElevenLabs SDK against /elevenlabs', () => {
  it('textToSpeech.convert: the provider’s audio, billed its characters once, the gateway’s key upstream', async () => {
    const text = 'Hello from the gateway.';
    const before = await balanceMicros(gateway, funded.accountId);
    const { data, rawResponse } = await client(funded.key)
      .textToSpeech.convert(VOICE, { text, modelId: 'eleven-multilingual', outputFormat: 'mp3_44100_128' })
      .withRawResponse();
    expect((await bytesOf(data)).equals(speechMp3(text))).toBe(true);
    expect(rawResponse.headers.get('x-character-count')).toBe(String(text.length));
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SPEECH, characters(text)));
    const sent = lastRequest();
    expect(sent.url).toBe(`/v1/text-to-speech/${VOICE}?output_format=mp3_44100_128`);
    expect(sent.headers['xi-api-key']).toBe(FAKE_KEY);
    expect(lastJson()).toEqual({ text, model_id: 'eleven_multilingual_v2' });
  });

  it('textToSpeech.stream: the audio arrives in pieces, the query goes upstream, billed once', async () => {
    const text = 'A streamed sentence, spoken in several pieces of audio.';
    const before = await balanceMicros(gateway, funded.accountId);
    const stream = await client(funded.key).textToSpeech.stream(VOICE, {
      text,
      modelId: 'eleven_multilingual_v2',
      enableLogging: false,
      optimizeStreamingLatency: 2,
    });
    expect((await bytesOf(stream)).equals(speechMp3(text))).toBe(true);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SPEECH, characters(text)));
    expect(lastRequest().url).toBe(
      `/v1/text-to-speech/${VOICE}/stream?enable_logging=false&optimize_streaming_latency=2`,
    );
  });

  it('textToSoundEffects.convert: a fixed duration is billed as asked, the default model kept as sent', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    const audio = await bytesOf(
      await client(funded.key).textToSoundEffects.convert({
        text: 'A door creaks open',
        durationSeconds: 2.5,
      }),
    );
    expect(audio.readUInt16BE(0)).toBe(0xfffb);
    expect(audio.length).toBe(Math.round(2.5 / (1152 / 44100)) * MP3_FRAME_BYTES);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SOUND, seconds(2.5)));
    // No model_id: the default model's route takes the body byte for byte.
    expect(lastJson()).toEqual({ text: 'A door creaks open', duration_seconds: 2.5 });
  });

  it('textToSoundEffects.convert without a duration: billed the seconds measured from the audio', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    const audio = await bytesOf(
      await client(funded.key).textToSoundEffects.convert({ text: 'Thunder rolling over distant hills' }),
    );
    const frames = audio.length / MP3_FRAME_BYTES;
    expect(frames).toBeGreaterThan(100);
    const spent = before - (await balanceMicros(gateway, funded.accountId));
    expect(spent).toBe(costOf(SOUND, seconds((frames * 1152) / 44100)));
  });

  it('speechToText.convert: the transcript as ElevenLabs gives it, billed the longer duration', async () => {
    const wav = wavOfSeconds(2);
    const before = await balanceMicros(gateway, funded.accountId);
    const transcript = (await client(funded.key).speechToText.convert({
      file: new Blob([wav], { type: 'audio/wav' }),
      modelId: 'scribe',
    })) as { text: string; audioDurationSecs?: number };
    expect(transcript.text.length).toBeGreaterThan(0);
    // 64,044 bytes of 16 kHz 16-bit audio: 2 s measured, the fake hears 4 s: the longer is billed.
    expect(transcript.audioDurationSecs).toBe(4);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SCRIBE, seconds(4)));
    const sent = lastRequest();
    expect(sent.headers['xi-api-key']).toBe(FAKE_KEY);
    expect(sent.body.toString('latin1')).toMatch(/name="model_id"\r\n\r\nscribe_v1\r\n/);
  });
});

describe('what passes through /elevenlabs', () => {
  it('the streamed bytes are the upstream bytes; the cost follows as the X-Service-Cost trailer', async () => {
    const text = 'Bytes for bytes.';
    const body = JSON.stringify({ text, model_id: SPEECH });
    const answer = await raw(gateway.origin, `/elevenlabs/v1/text-to-speech/${VOICE}/stream`, {
      headers: { 'content-type': 'application/json', 'xi-api-key': funded.key },
      body,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('audio/mpeg');
    expect(answer.body.equals(speechMp3(text))).toBe(true);
    expect(irtToMicros(answer.trailers['x-service-cost'] ?? '')).toBe(costOf(SPEECH, characters(text)));
    // Upstream, the body changed only in its model value.
    expect(lastRequest().body.toString('utf8')).toBe(body.replace(SPEECH, 'eleven_multilingual_v2'));
  });

  it('a transcript comes back byte for byte with its cost in the X-Service-Cost header', async () => {
    // A 128 kbps MP3: the fake hears a little less than it lasts, so the measured duration is billed.
    const mp3 = mp3OfSeconds(3);
    const form = await formBody(
      { model_id: 'scribe_v1', tag_audio_events: 'false' },
      { bytes: mp3, name: 'a.mp3' },
    );
    const before = await balanceMicros(gateway, funded.accountId);
    const res = await post('/elevenlabs/v1/speech-to-text', funded.key, form.body, {
      'content-type': form.contentType,
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const direct = await fetch(`${fake.url}/v1/speech-to-text`, {
      method: 'POST',
      headers: { 'content-type': form.contentType, 'xi-api-key': FAKE_KEY },
      body: form.body,
    });
    expect(text).toBe(await direct.text());
    const cost = costOf(SCRIBE, seconds((await probeAudio(mp3)).durationSeconds));
    expect(irtToMicros(res.headers.get('x-service-cost') ?? '')).toBe(cost);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - cost);
    // Every byte of the upload went upstream as sent.
    expect(Buffer.from(form.body).equals(fake.requests.at(-2)?.body ?? Buffer.alloc(0))).toBe(true);
  });

  it('multi-channel: each transcribed channel is billed in full', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    const wav = stereoWav(1);
    const res = await transcribe(funded.key, { model_id: 'scribe_v1', use_multi_channel: 'true' }, wav);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { transcripts: Array<{ channel_index: number }> };
    expect(body.transcripts.map((t) => t.channel_index)).toEqual([0, 1]);
    // 64,044 bytes: 1 s measured, 4 s heard, two channels.
    const cost = costOf(SCRIBE, seconds(8));
    expect(irtToMicros(res.headers.get('x-service-cost') ?? '')).toBe(cost);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - cost);
  });

  it('raw PCM (file_format=pcm_s16le_16) is measured by its byte rate', async () => {
    const pcm = new Uint8Array(32_000 * 2);
    const res = await transcribe(funded.key, { model_id: 'scribe_v1', file_format: 'pcm_s16le_16' }, pcm);
    expect(res.status).toBe(200);
    // 2 s measured, 4 s heard by the fake (bytes / 16000).
    expect(irtToMicros(res.headers.get('x-service-cost') ?? '')).toBe(costOf(SCRIBE, seconds(4)));
  });

  it('a file is billed the audio it sends, not what its header states', async () => {
    // 30 s at 4 kHz (8,000 bytes a second, so the fake hears only 15 s) whose header says its
    // samples are 2 bytes, and an MP3 of 8 frames at 320 kbps, then 30 s at 32 kbps (an estimate
    // from its size and first frames says 3 s; the fake hears 8 s).
    const lyingWav = Buffer.from(wavOfSeconds(30, { sampleRate: 4000 }));
    lyingWav.writeUInt32LE(2, 40);
    const mixedMp3 = Buffer.concat([
      mp3OfFrames(8, { bitrateKbps: 320 }),
      mp3OfSeconds(30, { bitrateKbps: 32 }),
    ]);
    // And Opus in Ogg and in WebM stating 1 s (a last page's granule, a Duration) over 30 s of packets.
    const lyingOgg = Buffer.from(oggOpusOfSeconds(30, { statedSeconds: 1 }));
    const lyingWebm = Buffer.from(webmOpusOfSeconds(30, { statedSeconds: 1 }));
    const sentSeconds = [30, ((mp3FrameCount(30) + 8) * 1152) / 44100, 30, 30];
    for (const [index, file] of [lyingWav, mixedMp3, lyingOgg, lyingWebm].entries()) {
      const before = await balanceMicros(gateway, funded.accountId);
      const res = await transcribe(funded.key, { model_id: 'scribe_v1' }, file);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(fake.requests.at(-1)?.body.includes(file)).toBe(true);
      const cost = costOf(SCRIBE, seconds(sentSeconds[index] as number));
      expect(irtToMicros(res.headers.get('x-service-cost') ?? '')).toBe(cost);
      expect(await balanceMicros(gateway, funded.accountId)).toBe(before - cost);
    }
  });

  it('a sound in PCM without a duration is billed its byte rate', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    const res = await post('/elevenlabs/v1/sound-generation?output_format=pcm_16000', funded.key, {
      text: 'Rain on a tin roof',
    });
    expect(res.status).toBe(200);
    const audio = Buffer.from(await res.arrayBuffer());
    expect(audio.length).toBe(2 * 16000 * 1.8);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SOUND, seconds(1.8)));
  });

  it('an upload above the JSON body limit is taken (the upload limit is 50 MB)', async () => {
    const long = wavOfSeconds(300); // 9.6 MB, beyond MAX_BODY_BYTES (8 MB)
    const res = await transcribe(funded.key, { model_id: 'scribe_v1' }, long);
    expect(res.status).toBe(200);
    expect(irtToMicros(res.headers.get('x-service-cost') ?? '')).toBe(costOf(SCRIBE, seconds(600)));
  });
});

describe('admission on /elevenlabs', () => {
  const text = 'Admitted or not.';
  const speak = (key: string | undefined, headers: Record<string, string> = {}, query = '') =>
    post(`/elevenlabs/v1/text-to-speech/${VOICE}${query}`, key, { text }, headers);

  it('takes the key from every carrier; only the gateway’s key goes upstream', async () => {
    const carriers: Array<[Record<string, string>, string]> = [
      [{ authorization: `Bearer ${funded.key}` }, ''],
      [{ 'x-api-key': funded.key }, ''],
      [{ 'x-goog-api-key': funded.key }, ''],
      [{ 'xi-api-key': funded.key }, ''],
      [{ 'x-key': funded.key }, ''],
      [{}, `?output_format=mp3_44100_128&key=${funded.key}`],
    ];
    for (const [headers, query] of carriers) {
      const before = await balanceMicros(gateway, funded.accountId);
      const res = await speak(undefined, headers, query);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(await balanceMicros(gateway, funded.accountId)).toBe(before - costOf(SPEECH, characters(text)));
      const sent = lastRequest();
      expect(sent.headers['xi-api-key']).toBe(FAKE_KEY);
      for (const name of ['authorization', 'x-api-key', 'x-goog-api-key', 'x-key']) {
        expect(sent.headers[name]).toBeUndefined();
      }
      expect(sent.url).toBe(
        `/v1/text-to-speech/${VOICE}${query === '' ? '' : '?output_format=mp3_44100_128'}`,
      );
    }
  });

  it('no key or an unknown key → 401; a model the key may not use → 403; an address off its list → 403', async () => {
    const none = await speak(undefined);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    const unknown = await speak('hk-not-a-real-key-0000000000000000');
    expect(unknown.status).toBe(401);
    const limited = await fundedKey(1_000, { allowed_models: ['openai/gpt-4o-mini'] });
    const refused = await speak(limited.key);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'model_not_allowed' } });
    const elsewhere = await fundedKey(1_000, { allowed_ips: ['10.9.9.9'] });
    const off = await speak(elsewhere.key);
    expect(off.status).toBe(403);
    expect(await off.json()).toMatchObject({ error: { code: 'ip_not_allowed' } });
  });

  it('the rate limit counts native and /v1 requests together', async () => {
    const key = await createFundedKey(gateway.app, { topUp: 1_000, settings: { rate_limit: 2 } });
    const v1 = await fetch(`${gateway.origin}/v1/balance`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(v1.status).toBe(200);
    const first = await speak(key.key);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const third = await speak(key.key);
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('a wallet that cannot pay the next request → 402 insufficient_quota; a monthly cap → 402 spend_limit_reached', async () => {
    const cost = costOf(SPEECH, characters(text));
    // A speech request's cost is fixed by its text: admitted only when the wallet can pay it.
    const poor = await fundedKey(Number(cost + cost / 2n) / 1e6);
    const first = await speak(poor.key);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const second = await speak(poor.key);
    expect(second.status).toBe(402);
    expect(await second.json()).toMatchObject({ error: { code: 'insufficient_quota' } });
    expect(await balanceMicros(gateway, poor.accountId)).toBe(cost / 2n);
    const capped = await fundedKey(1_000, { monthly_cap: Number(cost + cost / 2n) / 1e6 });
    const spent = await speak(capped.key);
    expect(spent.status).toBe(200);
    await spent.arrayBuffer();
    const over = await speak(capped.key);
    expect(over.status).toBe(402);
    expect(await over.json()).toMatchObject({ error: { code: 'spend_limit_reached' } });
    expect(await balanceMicros(gateway, capped.accountId)).toBe(1_000_000_000n - cost);
  });

  /** Sends `first` (answered slowly by the fake) and, while it is held, `second`: the second's status. */
  async function whileHeld(first: () => Promise<Response>, second: () => Promise<Response>) {
    fake.script.next({ kind: 'slow', delayMs: 600 });
    const calls = fake.requests.length;
    const held = first();
    while (fake.requests.length === calls) await new Promise((resolve) => setTimeout(resolve, 10));
    const answer = await second();
    await answer.arrayBuffer();
    const done = await held;
    expect(done.status).toBe(200);
    await done.arrayBuffer();
    return answer.status;
  }

  it('a sound without a duration holds its longest length; one with a duration holds that', async () => {
    // 10,000 IRT: 30 s of sound effects cost 37,800 IRT, 5 s 6,300 IRT.
    const sound =
      (key: string, extra: Record<string, unknown> = {}) =>
      () =>
        post('/elevenlabs/v1/sound-generation', key, { text: 'Wind', ...extra });
    const unbounded = await fundedKey(10_000);
    expect(await whileHeld(sound(unbounded.key), sound(unbounded.key, { duration_seconds: 1 }))).toBe(402);
    const bounded = await fundedKey(10_000);
    const second = sound(bounded.key, { duration_seconds: 1 });
    expect(await whileHeld(sound(bounded.key, { duration_seconds: 5 }), second)).toBe(200);
    expect(await balanceMicros(gateway, bounded.accountId)).toBe(10_000_000_000n - costOf(SOUND, seconds(6)));
  });

  it('an upload is held for once measured: its hold counts against concurrent requests', async () => {
    // 14 IRT; 2 s of Scribe cost 12.85 IRT, held once measured (the fake hears 4 s: 25.69 IRT are
    // charged); a speech request meanwhile cannot fit what is left.
    const key = await fundedKey(14);
    const upload = () => transcribe(key.key, { model_id: 'scribe_v1' }, wavOfSeconds(2));
    expect(await whileHeld(upload, () => speak(key.key))).toBe(402);
    expect(await balanceMicros(gateway, key.accountId)).toBe(14_000_000n - costOf(SCRIBE, seconds(4)));
  });

  it('50 concurrent requests on a small wallet: the wallet equals its ledger, no overshoot', async () => {
    const key = await fundedKey(1_000);
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await speak(key.key);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(answers.every((status) => status === 200 || status === 402)).toBe(true);
    const cost = costOf(SPEECH, characters(text));
    const served = answers.filter((status) => status === 200).length;
    // A speech request holds its exact cost and is admitted only when it fits above the floor
    // beside the holds of the others: as many as the wallet pays, none past it.
    expect(served).toBe(Number(1_000_000_000n / cost));
    const balance = await balanceMicros(gateway, key.accountId);
    expect(balance).toBe(1_000_000_000n - BigInt(served) * cost);
    expect(balance >= 0n && balance < cost).toBe(true);
    const ledger = await gateway.services.billing.listLedger(key.accountId, { limit: 100 });
    expect(ledger.reduce((sum, entry) => sum + entry.amountMicros, 0n)).toBe(balance);
  });
});

describe('refusals before sending', () => {
  it('an unknown model → 404; a body that is not JSON, no body, model_id twice → 400', async () => {
    const path = `/elevenlabs/v1/text-to-speech/${VOICE}`;
    const unknown = await post(path, funded.key, { text: 'hi', model_id: 'eleven_nope' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'model_not_found' } });
    expect((await post(path, funded.key, '{"text":')).status).toBe(400);
    const empty = await fetch(`${gateway.origin}${path}`, {
      method: 'POST',
      headers: { 'xi-api-key': funded.key },
    });
    expect(empty.status).toBe(400);
    const twice = await post(
      path,
      funded.key,
      '{"text":"hi","model_id":"eleven_v3","model_id":"eleven_flash_v2_5"}',
    );
    expect(twice.status).toBe(400);
  });

  it('a voice id that is not a plain path segment → 400, never another upstream path', async () => {
    const calls = fake.requests.length;
    for (const voice of ['..', '.', '%2E%2E', 'a.b', 'a%2Fb']) {
      const answer = await raw(gateway.origin, `/elevenlabs/v1/text-to-speech/${voice}/stream`, {
        headers: { 'content-type': 'application/json', 'xi-api-key': funded.key },
        body: JSON.stringify({ text: 'hi' }),
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ error: { type: 'invalid_request_error' } });
    }
    expect(fake.requests.length).toBe(calls);
  });

  it('what the gateway cannot bill is refused with 400 and never sent', async () => {
    const calls = fake.requests.length;
    const opus = await post('/elevenlabs/v1/sound-generation?output_format=opus_48000_64', funded.key, {
      text: 'Bells',
    });
    expect(opus.status).toBe(400);
    expect((await opus.json()) as unknown).toMatchObject({
      error: { message: expect.stringContaining('opus') },
    });
    const twice = await post(
      '/elevenlabs/v1/sound-generation?output_format=pcm_16000&output_format=mp3_44100_128',
      funded.key,
      { text: 'Bells' },
    );
    expect(twice.status).toBe(400);
    const surcharged = await transcribe(
      funded.key,
      { model_id: 'scribe_v1', entity_detection: 'all', keyterms: 'gateway' },
      wavOfSeconds(1),
    );
    expect(surcharged.status).toBe(400);
    const message = ((await surcharged.json()) as { error: { message: string } }).error.message;
    expect(message).toContain('entity_detection_surcharge');
    expect(message).toContain('keyterms_surcharge');
    const byUrl = await transcribe(funded.key, {
      model_id: 'scribe_v1',
      source_url: 'https://example.com/a.mp3',
    });
    expect(byUrl.status).toBe(400);
    const notAudio = await transcribe(
      funded.key,
      { model_id: 'scribe_v1' },
      new TextEncoder().encode('hello'),
    );
    expect(notAudio.status).toBe(400);
    const noBoundary = await post('/elevenlabs/v1/speech-to-text', funded.key, 'x', {
      'content-type': 'multipart/form-data',
    });
    expect(noBoundary.status).toBe(400);
    expect(fake.requests.length).toBe(calls);
  });

  it('bodies over their limit → 413: 8 MB of JSON, 51 MB of upload', async () => {
    const json = await post(`/elevenlabs/v1/text-to-speech/${VOICE}`, funded.key, {
      text: 'x'.repeat(9 * 1024 * 1024),
    });
    expect(json.status).toBe(413);
    const upload = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${gateway.origin}/elevenlabs/v1/speech-to-text`, {
        method: 'POST',
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(52 * 1024 * 1024),
          'xi-api-key': funded.key,
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(upload).toBe(413);
  });
  it('an upload with a bad key → 401 on its head, before its body is read', async () => {
    // 40 MB announced, only the first KB sent: the answer cannot wait for the body.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${gateway.origin}/elevenlabs/v1/speech-to-text`, {
        method: 'POST',
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(40 * 1024 * 1024),
          'xi-api-key': 'hk-not-a-key-of-this-gateway',
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024, 'a'));
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain('invalid_api_key');
  });
});

describe('errors and fallbacks on /elevenlabs', () => {
  const speak = (text = 'Fallbacks.') => post(`/elevenlabs/v1/text-to-speech/${VOICE}`, funded.key, { text });

  it("the provider's own 4xx passes through in its format, held secrets scrubbed, nothing charged", async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    const missing = await post('/elevenlabs/v1/text-to-speech/missingVoiceId000000', funded.key, {
      text: 'hi',
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      detail: {
        status: 'voice_not_found',
        message: 'A voice with the voice_id missingVoiceId000000 was not found.',
      },
    });
    // A field the gateway does not bound: ElevenLabs judges it.
    const invalid = await post('/elevenlabs/v1/sound-generation', funded.key, {
      text: 'Boom',
      prompt_influence: 5,
    });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ detail: [{ loc: ['body', 'prompt_influence'] }] });
    // The fake echoes the voice id: here the gateway's own ElevenLabs key, which never comes back.
    const echoed = await post(`/elevenlabs/v1/text-to-speech/${FAKE_KEY}`, funded.key, { text: 'hi' });
    expect(echoed.status).toBe(400);
    const text = await echoed.text();
    expect(text).not.toContain(FAKE_KEY);
    expect(text).toContain('[redacted]');
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before);
  });

  it('a 5xx or a timeout on the first route falls back to the second before the client sees anything', async () => {
    fake.script.next({ kind: 'status', status: 503 });
    const res = await speak();
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    fake.script.next({ kind: 'slow', delayMs: 1_500 });
    const slow = await speak();
    expect(slow.status).toBe(200);
    await slow.arrayBuffer();
    fake.script.next({ kind: 'status', status: 500 });
    const transcript = await transcribe(funded.key, { model_id: 'scribe_v1' }, wavOfSeconds(1));
    expect(transcript.status).toBe(200);
    const models = fake.requests
      .slice(-2)
      .map((r) => /name="model_id"\r\n\r\n(\w+)\r\n/.exec(r.body.toString('latin1'))?.[1]);
    expect(models).toEqual(['scribe_v1', 'scribe_v2']);
  });

  it('every route 429 → 429 rate_limit_error; every route failing → 503 upstream_error; nothing charged', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    fake.script.next({ kind: 'status', status: 429, retryAfterSeconds: 1 }, 2);
    const limited = await speak();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    fake.script.next({ kind: 'status', status: 500 }).next({ kind: 'status', status: 503 });
    const down = await post('/elevenlabs/v1/sound-generation', funded.key, {
      text: 'Boom',
      duration_seconds: 1,
    });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).not.toBeNull();
    expect(await down.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before);
  });

  it('audio the provider breaks off mid-way is not charged', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    fake.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const speech = await raw(gateway.origin, `/elevenlabs/v1/text-to-speech/${VOICE}/stream`, {
      headers: { 'content-type': 'application/json', 'xi-api-key': funded.key },
      body: JSON.stringify({ text: 'Cut in the middle of the sentence.' }),
    }).then(
      (answer) => `ended cleanly (${answer.status})`,
      (err: Error) => `broken off (${err.message})`,
    );
    // The client's connection breaks off too: a cut audio stream must not look whole.
    expect(speech).toMatch(/^broken off/);
    fake.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const sound = await post('/elevenlabs/v1/sound-generation', funded.key, {
      text: 'A long low hum in the hall',
    });
    await sound.arrayBuffer().catch(() => undefined);
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before);
  });

  it('a transcript the provider breaks off mid-way → 502 upstream_error, not charged', async () => {
    const before = await balanceMicros(gateway, funded.accountId);
    fake.script.next({ kind: 'fail-mid-stream', afterEvents: 0, mode: 'disconnect' });
    const res = await transcribe(funded.key, { model_id: 'scribe_v1' }, wavOfSeconds(1));
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { type: 'upstream_error' } });
    expect(await balanceMicros(gateway, funded.accountId)).toBe(before);
  });

  it('a client that leaves mid-stream is charged what it asked for once the stream is read on or cut (the provider bills it)', async () => {
    const text = 'Left before the end.';
    const key = await fundedKey(1_000);
    fake.script.next({ kind: 'stall-mid-stream', afterEvents: 0 });
    const res = await post(`/elevenlabs/v1/text-to-speech/${VOICE}`, key.key, { text });
    const reader = res.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    await reader?.cancel();
    const expected = 1_000_000_000n - costOf(SPEECH, characters(text));
    const deadline = Date.now() + 5_000;
    while ((await balanceMicros(gateway, key.accountId)) !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await balanceMicros(gateway, key.accountId)).toBe(expected);
  });

  it('paths: an unserved path → 404 endpoint_not_supported', async () => {
    for (const [method, path] of [
      ['GET', '/elevenlabs/v1/voices'],
      ['POST', '/elevenlabs/v1/music'],
      ['POST', `/elevenlabs/v1/text-to-speech/${VOICE}/with-timestamps`],
      ['GET', '/elevenlabs/v1/sound-generation'],
    ] as const) {
      const res = await fetch(`${gateway.origin}${path}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'endpoint_not_supported' } });
    }
  });
});

describe('a gateway without an ElevenLabs credential', () => {
  it('answers 404 provider_not_found under /elevenlabs', async () => {
    const bare = await startGateway(fake, { ELEVENLABS_API_KEY: undefined });
    try {
      const key = await createFundedKey(bare.app, { topUp: 1_000 });
      const res = await fetch(`${bare.origin}/elevenlabs/v1/sound-generation`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': key.key },
        body: JSON.stringify({ text: 'Boom' }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'provider_not_found' } });
    } finally {
      await bare.close();
    }
  });
});

describe('a gateway whose ElevenLabs credential the provider refuses', () => {
  it('tries every route, then 503 upstream_error: the provider’s 401 never reaches the client', async () => {
    const refused = await startGateway(fake, { ELEVENLABS_API_KEY: 'not-the-fake-key' });
    try {
      const key = await createFundedKey(refused.app, { topUp: 1_000 });
      const calls = fake.requests.length;
      const res = await fetch(`${refused.origin}/elevenlabs/v1/text-to-speech/${VOICE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': key.key },
        body: JSON.stringify({ text: 'hi' }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error' } });
      expect(fake.requests.length).toBe(calls + 2);
      expect(await balanceMicros(refused, key.accountId)).toBe(1_000_000_000n);
    } finally {
      await refused.close();
    }
  });
});
