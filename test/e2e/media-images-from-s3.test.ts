/**
 * Images when the worker makes no Redis copy (MEDIA_HANDOFF_MAX_BYTES=0, or an image over it):
 * the api reads the stored PNG back from S3, and the answer is the same.
 */
import { describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '../fakes/media-files.ts';
import { costMicros, jobIdOf, serviceOf, useMediaGateway } from '../helpers/media-gateway.ts';

const { m, user } = useMediaGateway({}, { WORKER_QUEUES: 'image', MEDIA_HANDOFF_MAX_BYTES: '0' });

describe('images without a Redis copy', () => {
  it('are read back from S3, byte for byte, and charged once', async () => {
    const before = await m.balanceMicros(user.accountId);
    const { data, response } = await user.client.images
      .generate({ model: 'openai/gpt-image-1', prompt: 'from the bucket', n: 2 })
      .withResponse();
    const jobId = jobIdOf('image', response.headers.get('x-request-id'));
    const job = await m.job(jobId);
    if (job?.result?.kind !== 'image') throw new Error('no image result recorded');
    expect(job.result.images).toHaveLength(2);
    for (const [i, image] of job.result.images.entries()) {
      expect(image.handoff).toBeUndefined();
      const answered = Buffer.from(data.data?.[i]?.b64_json ?? '', 'base64');
      expect(answered.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect(answered).toEqual(Buffer.from(await m.gateway.services.media.storage.getBytes(image.key)));
    }
    const cost = costMicros(serviceOf(data).cost);
    expect(before - (await m.balanceMicros(user.accountId))).toBe(cost);
    expect((await m.charges(user.accountId)).map((c) => c.id)).toEqual([jobId]);
  });
});
