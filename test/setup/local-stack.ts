import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJongodb } from '../../infra/local-services/jongodb.ts';
import { startRedisServer } from '../../infra/local-services/redis-server.ts';
import { startS3Server } from '../../infra/local-services/s3-server.ts';
import type { StackEndpoints } from './stack-endpoints.ts';

export interface RunningStack {
  readonly endpoints: StackEndpoints;
  stop(): Promise<void>;
}

/** Local processes: redis-server on a free port, jongodb, s3rver in this process on a temp dir. */
export async function startLocalProcesses(): Promise<RunningStack> {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-test-s3-'));
  const [redis, mongo, s3] = await Promise.all([
    startRedisServer(),
    startJongodb(),
    startS3Server(directory),
  ]);
  return {
    endpoints: {
      redisUrl: redis.url,
      mongoUrl: mongo.url,
      s3: { endpoint: s3.endpoint, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    },
    async stop() {
      await Promise.allSettled([redis.process.stop(), mongo.process.stop(), s3.stop()]);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
