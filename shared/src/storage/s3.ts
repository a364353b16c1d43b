import { CreateBucketCommand, HeadBucketCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';

export interface S3Options {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
}

/**
 * An S3 client for AWS, MinIO or s3rver. Checksums only when required: s3rver stores streamed
 * uploads corrupted when the SDK adds its default CRC trailers.
 */
export function createS3Client(options: S3Options): S3Client {
  return new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

const RACE_CODES = new Set(['BucketAlreadyOwnedByYou', 'BucketAlreadyExists']);

/** Creates the bucket when it does not exist yet; a bucket that exists (ours) is left as it is. */
export async function ensureBucket(s3: S3Client, bucket: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (err) {
    if (!(err instanceof S3ServiceException) || err.$metadata.httpStatusCode !== 404) throw err;
  }
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    // Another process (the api and a worker start together) may have created it between our two
    // calls; servers answer that race with either code. Whoever owns it, it must answer HEAD now.
    const raced = err instanceof S3ServiceException && RACE_CODES.has(err.name);
    if (!raced) throw err;
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  }
}
