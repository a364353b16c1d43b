import { randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import s3rverAccounts from 's3rver/lib/models/account.js';

export interface LocalS3 {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  stop(): Promise<void>;
}

/**
 * Runs s3rver in this process on a free port, storing objects under `directory`, with a key pair
 * of its own: random, made for this run, registered with s3rver's account while it runs. s3rver
 * refuses an access key id it does not know, but does not verify SigV4 signatures (the secret is
 * never checked here; a real S3 or MinIO checks it). The pair replaces s3rver's well-known
 * built-in `S3RVER`/`S3RVER` for the processes the stack starts: that six-letter secret is below
 * the length the gateway's secret scrubber handles safely, so every process given it warned at
 * start and redacted the word wherever it appeared.
 */
export async function startS3Server(directory: string): Promise<LocalS3> {
  const accessKeyId = `LOCAL${randomBytes(10).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(30).toString('base64url');
  s3rverAccounts.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const address = (await server.run()) as { address: string; port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKeyId,
    secretAccessKey,
    stop: async () => {
      await server.close();
      s3rverAccounts.DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
    },
  };
}
