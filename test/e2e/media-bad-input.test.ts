/**
 * Bad input on the media endpoints, through the listening api with a worker process running:
 * field validation answers 422 `{message, errors: {field: [..]}}` (image and audio endpoints),
 * unknown, mistyped, disabled or wrong-type models answer 404 `model_not_found`, video ids that do
 * not exist or belong to another account answer 404. None of them creates a job document, leaves
 * an upload in S3 or charges anything.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { UnprocessableEntityError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wavOfSamples, wavOfSeconds } from '../../shared/src/file-formats/builders/wav.ts';
import { PNG_SIGNATURE } from '../fakes/media-files.ts';
import { type MediaClient, type MediaGateway, startMediaGateway } from '../helpers/media-gateway.ts';
import { createVideo, videoRequest } from '../helpers/media-videos.ts';

let m: MediaGateway;
let user: MediaClient;
let stranger: MediaClient;

beforeAll(async () => {
  // A short wait: a request wrongly accepted fails fast instead of hanging the file.
  m = await startMediaGateway({ apiEnv: { MEDIA_WAIT_TIMEOUT_MS: '3000' } });
  await m.startWorker({ WORKER_QUEUES: 'image,speech,transcription' });
  [user, stranger] = await Promise.all([m.fundedClient(), m.fundedClient()]);
});
afterAll(async () => {
  await m?.close();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function post(
  path: string,
  body: string | FormData,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${m.gateway.origin}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.key}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const postJson = (path: string, body: unknown) =>
  post(path, JSON.stringify(body), { 'content-type': 'application/json' });

function form(parts: Array<[string, string | Blob, string?]>): FormData {
  const data = new FormData();
  for (const [name, value, fileName] of parts) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, value, fileName);
  }
  return data;
}

const audio = (bytes: Uint8Array, type = 'audio/wav') => new Blob([new Uint8Array(bytes)], { type });

/** Runs `send` and checks it changed nothing: no job, no upload left, no charge, same balance. */
async function leavesNoTrace(send: () => Promise<void>): Promise<void> {
  const jobs = await m.jobCount();
  const balance = await m.balanceMicros(user.accountId);
  await send();
  expect(await m.jobCount()).toBe(jobs);
  expect(await m.balanceMicros(user.accountId)).toBe(balance);
  expect(await m.charges(user.accountId)).toEqual([]);
  // A refused upload is removed off the answer's path (transcriptions.route.ts): soon, not before.
  const uploadsLeft = async () => {
    const listed = await (await m.gateway.connections.s3.use()).client.send(
      new ListObjectsV2Command({ Bucket: m.gateway.config.s3.bucket, Prefix: 'uploads/' }),
    );
    return listed.KeyCount ?? 0;
  };
  await expect.poll(uploadsLeft, { timeout: 5_000 }).toBe(0);
}

/** A 422 field-validation answer naming `field`. */
function expectFieldError(answer: Answer, field: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  // One readable sentence naming the problem.
  expect(answer.body.message).toMatch(/^The .*[^.]\.$/);
  expect(String(answer.body.message)).not.toMatch(/field The |\.\.$/);
  const errors = answer.body.errors as Record<string, unknown>;
  expect(Object.keys(errors)).toEqual([field]);
  const messages = errors[field] as unknown[];
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(typeof message).toBe('string');
}

function expectModelNotFound(answer: Answer): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(404);
  expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found' });
}

describe('field validation: 422 {message, errors}', () => {
  const image = { model: 'openai/gpt-image-1', prompt: 'a fox' };
  const speech = { model: 'openai/tts-1', voice: 'alloy', input: 'hello' };

  it.each([
    ['prompt over 32000 characters', { ...image, prompt: 'x'.repeat(32_001) }, 'prompt'],
    ['prompt missing', { model: image.model }, 'prompt'],
    ['n of 0', { ...image, n: 0 }, 'n'],
    ['n of 5', { ...image, n: 5 }, 'n'],
    ['n not an integer', { ...image, n: 1.5 }, 'n'],
    ['size not WxH', { ...image, size: 'huge' }, 'size'],
    ['size without a height', { ...image, size: '1024x' }, 'size'],
    ['quality unknown', { ...image, quality: 'ultra' }, 'quality'],
  ])('image: %s', async (_name, body, field) => {
    await leavesNoTrace(async () => expectFieldError(await postJson('/images/generations', body), field));
  });

  it('image: the SDK sees a typed 422 error', async () => {
    await leavesNoTrace(async () => {
      const err = await user.client.images.generate({ ...image, n: 5 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnprocessableEntityError);
    });
  });

  it.each([
    ['input over 10000 characters', { ...speech, input: 'y'.repeat(10_001) }, 'input'],
    ['input missing', { model: speech.model, voice: 'alloy' }, 'input'],
    ['voice missing', { model: speech.model, input: 'hello' }, 'voice'],
    ['speed out of range', { ...speech, speed: 9 }, 'speed'],
  ])('speech: %s', async (_name, body, field) => {
    await leavesNoTrace(async () => expectFieldError(await postJson('/audio/speech', body), field));
  });

  it.each([
    [
      'a PNG',
      () =>
        form([
          ['model', 'openai/whisper-1'],
          ['file', audio(PNG_SIGNATURE, 'image/png'), 'a.png'],
        ]),
    ],
    [
      'text',
      () =>
        form([
          ['model', 'openai/whisper-1'],
          ['file', audio(Buffer.from('hello '.repeat(500)), 'text/plain'), 'a.wav'],
        ]),
    ],
    [
      'an empty file',
      () =>
        form([
          ['model', 'openai/whisper-1'],
          ['file', audio(new Uint8Array()), 'a.wav'],
        ]),
    ],
    ['no file', () => form([['model', 'openai/whisper-1']])],
    [
      'two files',
      () =>
        form([
          ['file', audio(wavOfSeconds(1)), 'a.wav'],
          ['file', audio(wavOfSeconds(1)), 'b.wav'],
        ]),
    ],
    ['a file under another name', () => form([['audio', audio(wavOfSeconds(1)), 'a.wav']])],
  ])('transcription: %s', async (_name, body) => {
    await leavesNoTrace(async () => {
      const answer = await post('/audio/transcriptions', body());
      expect(Object.keys((answer.body.errors as object | undefined) ?? {})).toHaveLength(1);
      expect(answer.status).toBe(422);
    });
  });

  it('transcription: the file must be sent as multipart', async () => {
    await leavesNoTrace(async () =>
      expectFieldError(
        await postJson('/audio/transcriptions', { model: 'openai/whisper-1', file: 'abc' }),
        'file',
      ),
    );
  });

  it('transcription: a file over 50 MB is refused while it streams', async () => {
    // A valid WAV header, then 52 MB of silence (built in memory, about 0.1 s).
    const big = wavOfSamples(26_300_000);
    expect(big.length).toBeGreaterThan(50 * 1024 * 1024);
    await leavesNoTrace(async () => {
      const answer = await post('/audio/transcriptions', form([['file', audio(big), 'long.wav']]));
      expectFieldError(answer, 'file');
      expect((answer.body.errors as Record<string, string[]>).file?.[0]).toContain('50 MB');
    });
  }, 30_000);

  it('names the offending field, in one readable message, for each transcription refusal', async () => {
    const [png, text, none, two] = await Promise.all([
      post('/audio/transcriptions', form([['file', audio(PNG_SIGNATURE, 'image/png'), 'a.png']])),
      post(
        '/audio/transcriptions',
        form([['file', audio(Buffer.from('hello '.repeat(500)), 'text/plain'), 'a.txt']]),
      ),
      post('/audio/transcriptions', form([['model', 'openai/whisper-1']])),
      post(
        '/audio/transcriptions',
        form([
          ['file', audio(wavOfSeconds(1)), 'a.wav'],
          ['file', audio(wavOfSeconds(1)), 'b.wav'],
        ]),
      ),
    ]);
    for (const answer of [png, text, none, two]) expectFieldError(answer, 'file');
    expect(png.body).toEqual({
      message: 'The file is not a recognised audio file.',
      errors: { file: ['The file is not a recognised audio file.'] },
    });
    expect(text.body.message).toBe('The file is not a recognised audio file.');
    expect(none.body).toEqual({ message: 'The file field is required.', errors: { file: ['is required'] } });
    expect(two.body.message).toBe('The file field must be a single file.');
  });
});

describe('models that do not fit: 404 model_not_found', () => {
  it.each([
    ['unknown', 'openai/gpt-image-9'],
    ['mistyped', 'openai/gpt_image_1'],
    ['unknown provider', 'acme/gpt-image-1'],
    ['disabled', 'openai/dall-e-2'],
    ['a chat model', 'openai/gpt-5.1'],
    ['a speech model', 'openai/tts-1'],
    ['a video model', 'openai/sora-2'],
  ])('image endpoint, %s model', async (_name, model) => {
    await leavesNoTrace(async () =>
      expectModelNotFound(await postJson('/images/generations', { model, prompt: 'x' })),
    );
  });

  it.each([
    ['unknown', 'openai/tts-9'],
    ['an image model', 'openai/gpt-image-1'],
    ['a transcription model', 'openai/whisper-1'],
  ])('speech endpoint, %s model', async (_name, model) => {
    await leavesNoTrace(async () =>
      expectModelNotFound(await postJson('/audio/speech', { model, voice: 'alloy', input: 'hi' })),
    );
  });

  it.each([
    ['unknown', 'openai/whisper-9'],
    ['a speech model', 'openai/tts-1'],
    ['a chat model', 'openai/gpt-5.1'],
  ])('transcription endpoint, %s model (the upload is deleted)', async (_name, model) => {
    await leavesNoTrace(async () =>
      expectModelNotFound(
        await post(
          '/audio/transcriptions',
          form([
            ['model', model],
            ['file', audio(wavOfSeconds(1)), 'a.wav'],
          ]),
        ),
      ),
    );
  });

  it.each([
    ['unknown', 'openai/sora-9'],
    ['an image model', 'openai/gpt-image-1'],
    ['a chat model', 'openai/gpt-5.1'],
  ])('video endpoint, %s model', async (_name, model) => {
    await leavesNoTrace(async () =>
      expectModelNotFound(await postJson('/videos', { model, prompt: 'x', duration: 4 })),
    );
  });
});

describe('video ids: 404 for ids that do not exist or belong to another account', () => {
  it('answers 404 and changes nothing', async () => {
    const theirs = await createVideo(m, stranger.key, { model: 'demo/video', prompt: 'theirs', duration: 2 });
    await leavesNoTrace(async () => {
      for (const id of ['video_nope', theirs.id]) {
        for (const [method, path] of [
          ['GET', `/${id}`],
          ['GET', `/${id}/content`],
          ['DELETE', `/${id}`],
        ] as const) {
          const response = await videoRequest(m, user.key, method, path);
          expect(response.status, `${method} ${path}`).toBe(404);
          const body = (await response.json()) as { error: { type: string } };
          expect(body.error.type).toBe('invalid_request_error');
        }
      }
    });
    expect((await stranger.client.videos.retrieve(theirs.id)).id).toBe(theirs.id);
  });
});
