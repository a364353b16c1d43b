/**
 * Images end to end: the SDK's `images.generate` through the api, a worker process, S3 and the
 * fake OpenAI (gpt-image-1, dall-e-3) and Google (Imagen) upstreams. Each answer is the spec's
 * ImageResponse with base64 PNGs, and the wallet goes down by exactly `service.cost`.
 */
import { describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '../fakes/media-files.ts';
import {
  costMicros,
  jobIdOf,
  type MediaClient,
  serviceOf,
  useMediaGateway,
} from '../helpers/media-gateway.ts';

const { m, user } = useMediaGateway({}, { WORKER_QUEUES: 'image' });

/** Width and height from a PNG's IHDR chunk. */
function pngSize(b64: string | undefined): { width: number; height: number } {
  const png = Buffer.from(b64 ?? '', 'base64');
  expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Runs a generation and checks the ImageResponse shape and the exact charge. */
async function generateAndCheck(params: Parameters<MediaClient['client']['images']['generate']>[0]) {
  const before = await m.balanceMicros(user.accountId);
  const result = await user.client.images.generate({ ...params, stream: false });
  expect(Number.isInteger(result.created)).toBe(true);
  expect(result.usage).toBeDefined();
  const service = serviceOf(result);
  expect(service.currency).toBe('IRT');
  expect(service.cost).toBeGreaterThan(0);
  expect(before - (await m.balanceMicros(user.accountId))).toBe(costMicros(service.cost));
  return { result, service };
}

describe('POST /v1/images/generations through a worker process', () => {
  it('gpt-image-1 on the OpenAI fake: n images as base64 PNG, charged per image', async () => {
    const { result, service } = await generateAndCheck({
      model: 'openai/gpt-image-1',
      prompt: 'a lighthouse at dusk',
      n: 2,
      size: '1536x1024',
      quality: 'low',
    });
    expect(result.data).toHaveLength(2);
    // The fake draws size / 64: 1536x1024 -> 24x16, so the size reached the provider.
    for (const image of result.data ?? []) expect(pngSize(image.b64_json)).toEqual({ width: 24, height: 16 });
    expect(service.model).toBe('openai/gpt-image-1');
    const upstream = JSON.parse(m.fakes.openai.requests.at(-1)?.body.toString() ?? '{}');
    expect(upstream).toMatchObject({ model: 'gpt-image-1', n: 2, size: '1536x1024', quality: 'low' });
  });

  it('costs twice as much for two images as for one', async () => {
    const one = await generateAndCheck({ model: 'openai/gpt-image-1', prompt: 'one cat', n: 1 });
    const two = await generateAndCheck({ model: 'openai/gpt-image-1', prompt: 'two cats', n: 2 });
    expect(costMicros(two.service.cost)).toBe(2n * costMicros(one.service.cost));
  });

  it('dall-e-3 on the OpenAI fake: one image with its revised prompt', async () => {
    const { result, service } = await generateAndCheck({
      model: 'openai/dall-e-3',
      prompt: 'a paper boat',
      size: '1792x1024',
    });
    expect(result.data).toHaveLength(1);
    expect(pngSize(result.data?.[0]?.b64_json)).toEqual({ width: 28, height: 16 });
    expect(result.data?.[0]?.revised_prompt).toBe('A detailed picture of a paper boat');
    expect(service.model).toBe('openai/dall-e-3');
  });

  it('Imagen 4 on the Google fake: n images in the asked aspect ratio', async () => {
    const { result, service } = await generateAndCheck({
      model: 'google/imagen-4',
      prompt: 'a mountain lake',
      n: 3,
      // The SDK has no aspect_ratio; the gateway takes it as an extra body field.
      ...({ aspect_ratio: '16:9' } as object),
    });
    expect(result.data).toHaveLength(3);
    // The fake draws a:b as 4a x 4b pixels.
    for (const image of result.data ?? []) expect(pngSize(image.b64_json)).toEqual({ width: 64, height: 36 });
    expect(service.model).toBe('google/imagen-4');
    const request = m.fakes.google.requests.at(-1);
    expect(request?.url).toMatch(/\/v1beta\/models\/imagen-4\.0-generate-001:predict$/);
    const body = JSON.parse(request?.body.toString() ?? '{}');
    expect(body.parameters).toMatchObject({ sampleCount: 3, aspectRatio: '16:9' });
  });

  it('charges each delivered job exactly once, under its job id', async () => {
    const charges = await m.charges(user.accountId);
    expect(charges.length).toBe(5);
    expect(new Set(charges.map((c) => c.id)).size).toBe(5);
    for (const charge of charges) expect(charge.id).toMatch(/^img_/);
    expect(await m.gateway.services.billing.checkLedger()).toEqual([]);
  });

  it('answers with the short-lived Redis copies made by the worker, taken once, equal to the stored PNGs', async () => {
    const { data, response } = await user.client.images
      .generate({ model: 'openai/gpt-image-1', prompt: 'handed over', n: 2 })
      .withResponse();
    const job = await m.job(jobIdOf('image', response.headers.get('x-request-id')));
    if (job?.result?.kind !== 'image') throw new Error('no image result recorded');
    const { redis } = m.gateway.connections;
    for (const [i, image] of job.result.images.entries()) {
      expect(image.handoff).toMatch(/^[\w-]{22}$/);
      expect(await redis.exists(`${m.gateway.config.queues.prefix}:media-handoff:${image.handoff}`)).toBe(0);
      const stored = Buffer.from(await m.gateway.services.media.storage.getBytes(image.key));
      expect(Buffer.from(data.data?.[i]?.b64_json ?? '', 'base64')).toEqual(stored);
    }
  });
});
