import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ATTR_AWS_S3_BUCKET, ATTR_AWS_S3_KEY } from '../observability/semantic-attributes.ts';
import { inSpan, SpanKind } from '../observability/tracing.ts';
import type { S3Connection } from '../storage/s3-connection.ts';
import type { MediaJobResult } from './media-job.ts';

/**
 * Object keys: the job's folder, then, for what a worker stores, the attempt that stored it (a
 * fresh id each time a worker runs the job), so two attempts of one job (a worker thought dead
 * that was only slow, and the rerun) never write the same object. The job's result names the
 * objects of the attempt that completed it; another attempt's are deleted by that attempt, or by
 * the sweep when it died first. The api stores a transcription's upload once, before the job.
 */
export const mediaKeys = {
  image: (jobId: string, attempt: string, index: number) => `jobs/${jobId}/${attempt}/image-${index}.png`,
  speech: (jobId: string, attempt: string) => `jobs/${jobId}/${attempt}/speech.mp3`,
  upload: (jobId: string) => `uploads/${jobId}/audio`,
  video: (jobId: string, attempt: string) => `jobs/${jobId}/${attempt}/video.mp4`,
};

/** A fresh attempt id, for the keys of what one run of a job stores (`mediaKeys`). */
export function newAttemptId(): string {
  return randomBytes(6).toString('hex');
}

/** The folders of the bucket the gateway writes, each object under its job's id. */
export const MEDIA_PREFIXES = ['jobs/', 'uploads/'] as const;

/** The job an object belongs to, from its key (`jobs/<id>/…`, `uploads/<id>/…`); undefined for any other key. */
export function jobIdOfKey(key: string): string | undefined {
  return /^(?:jobs|uploads)\/([^/]+)\//.exec(key)?.[1];
}

/**
 * Every object a job may have stored: its result's media, and a transcription's upload (stored by
 * the api before the job existed, deleted after the answer).
 */
export function storedKeysOf(job: {
  readonly id: string;
  readonly kind: string;
  readonly result: MediaJobResult | null;
}): string[] {
  const keys: string[] = [];
  const { result } = job;
  if (result?.kind === 'image') keys.push(...result.images.map((image) => image.key));
  else if (result?.kind === 'speech' || result?.kind === 'video') keys.push(result.key);
  if (job.kind === 'transcription') keys.push(mediaKeys.upload(job.id));
  return keys;
}

/** An object of the bucket as a listing names it. */
export interface ListedObject {
  readonly key: string;
  readonly lastModified: Date;
}

/** Objects a listing asks for at once (S3's own maximum). */
const LIST_PAGE = 1_000;

export interface StoredObject {
  readonly body: Readable;
  readonly contentLength: number;
  readonly totalLength: number;
  /** Present for a partial (Range) read: `bytes start-end/total`. */
  readonly contentRange: string | undefined;
  readonly contentType: string | undefined;
}

/**
 * The media bucket: put, stream in, read (with ranges) and delete objects; each write a
 * `gateway.store` span. The SDK is the connection's, loaded by the first of these calls.
 */
export function createMediaStorage(s3: S3Connection, bucket: string) {
  const stored = (key: string, write: () => Promise<unknown>) =>
    inSpan(
      'gateway.store',
      SpanKind.INTERNAL,
      { [ATTR_AWS_S3_BUCKET]: bucket, [ATTR_AWS_S3_KEY]: key },
      write,
    );
  return {
    async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
      const { client, sdk } = await s3.use();
      await stored(key, () =>
        client.send(
          new sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: contentType }),
        ),
      );
    },

    /**
     * Streams a body of unknown length into the bucket (multipart upload), never buffering it whole.
     * A body that fails (destroyed with an error: a stalled or truncated request) fails the upload:
     * the multipart upload started for it is aborted (AbortMultipartUpload, no parts left behind)
     * before this rejects. To stop an upload, destroy its body with an error: `Upload.abort()`
     * alone would reject at once, but a body that stalls keeps the upload's readers waiting, so its
     * multipart upload would never be aborted.
     */
    async putStream(key: string, body: Readable, contentType: string): Promise<void> {
      const [{ client }, { Upload }] = await Promise.all([s3.use(), import('@aws-sdk/lib-storage')]);
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
      });
      await stored(key, () => upload.done());
    },

    async getBytes(key: string): Promise<Uint8Array> {
      const { client, sdk } = await s3.use();
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
      if (answer.Body === undefined) throw new Error(`object ${key} has no body`);
      return answer.Body.transformToByteArray();
    },

    /**
     * Reads an object, or the byte range `bytes=a-b` of it; null when it does not exist,
     * `'unsatisfiable'` when the range lies outside it.
     */
    async read(key: string, range?: string): Promise<StoredObject | null | 'unsatisfiable'> {
      const { client, sdk } = await s3.use();
      try {
        const answer = await client.send(
          new sdk.GetObjectCommand({ Bucket: bucket, Key: key, Range: range }),
        );
        const length = answer.ContentLength ?? 0;
        const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : length;
        return {
          body: answer.Body as Readable,
          contentLength: length,
          totalLength: total,
          contentRange: answer.ContentRange,
          contentType: answer.ContentType,
        };
      } catch (err) {
        if (!(err instanceof sdk.S3ServiceException)) throw err;
        if (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404) return null;
        if (err.name === 'InvalidRange' || err.$metadata.httpStatusCode === 416) return 'unsatisfiable';
        throw err;
      }
    },

    /**
     * Every object whose key starts with `prefix`, in key order, a page (`pageSize`) at a time. Each
     * page starts after the last key of the one before (`Marker`), so deleting what a page listed
     * before asking for the next changes nothing. The first version of the listing: every S3
     * server answers it, while s3rver (the local stack's) fails a truncated `ListObjectsV2` on
     * Node 22 and later (its continuation token needs `crypto.createCipher`, which they removed).
     */
    async *list(prefix: string, pageSize = LIST_PAGE): AsyncGenerator<ListedObject[]> {
      const { client, sdk } = await s3.use();
      let after: string | undefined;
      for (;;) {
        const page = await client.send(
          new sdk.ListObjectsCommand({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize, Marker: after }),
        );
        const objects = (page.Contents ?? []).flatMap(({ Key, LastModified }) =>
          Key === undefined ? [] : [{ key: Key, lastModified: LastModified ?? new Date(0) }],
        );
        if (objects.length > 0) yield objects;
        after = objects.at(-1)?.key;
        if (page.IsTruncated !== true || after === undefined) return;
      }
    },

    async remove(keys: readonly string[]): Promise<void> {
      if (keys.length === 0) return;
      const { client, sdk } = await s3.use();
      await client.send(
        new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }),
      );
    },
  };
}

export type MediaStorage = ReturnType<typeof createMediaStorage>;
