import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Options } from './s3.ts';

/** The S3 SDK's module: its commands and error classes. */
export type S3Sdk = typeof import('@aws-sdk/client-s3');

/** What a caller needs to talk to the bucket: the client, and the SDK to make its commands. */
export interface S3Use {
  readonly client: S3Client;
  readonly sdk: S3Sdk;
}

/**
 * The media bucket's connection, made on first use: the SDK (several MB of code and memory) is
 * imported, the client made and the bucket created when missing by the first `use()`, not at
 * start, so a process that never stores nor reads media (an api serving chat) never loads it. A
 * first use that fails (S3 unreachable) is tried again by the next one.
 */
export interface S3Connection {
  use(): Promise<S3Use>;
  /** Whether a `use()` has made the client (and so loaded the SDK). */
  readonly made: boolean;
  /** Destroys the client if one was made. */
  destroy(): void;
}

export function connectS3(options: S3Options, bucket: string): S3Connection {
  let using: Promise<S3Use> | undefined;
  let made: S3Client | undefined;
  let destroyed = false;
  const open = async (): Promise<S3Use> => {
    const [sdk, { createS3Client, ensureBucket }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('./s3.ts'),
    ]);
    const client = createS3Client(options);
    try {
      await ensureBucket(client, bucket);
    } catch (err) {
      client.destroy();
      throw err;
    }
    made = client;
    if (destroyed) client.destroy(); // closed while it was being made
    return { client, sdk };
  };
  return {
    use() {
      using ??= open().catch((err: unknown) => {
        using = undefined;
        throw err;
      });
      return using;
    },
    get made() {
      return made !== undefined;
    },
    destroy() {
      destroyed = true;
      made?.destroy();
    },
  };
}
