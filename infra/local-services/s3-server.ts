import S3rver from 's3rver';

export interface LocalS3 {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  stop(): Promise<void>;
}

/** s3rver's fixed development credentials. */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';

/** Runs s3rver in this process on a free port, storing objects under `directory`. */
export async function startS3Server(directory: string): Promise<LocalS3> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const address = (await server.run()) as { address: string; port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    stop: () => server.close(),
  };
}
