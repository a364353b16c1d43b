import { GenericContainer, Wait } from 'testcontainers';
import type { RunningStack } from './local-stack.ts';

const MINIO_USER = 'gateway';
const MINIO_PASSWORD = 'gateway-secret';

/** Real Redis, MongoDB and MinIO images, for machines with a Docker engine (`TEST_STACK=containers`). */
export async function startContainers(): Promise<RunningStack> {
  const [redis, mongo, minio] = await Promise.all([
    new GenericContainer('redis:7-alpine')
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'])
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
    new GenericContainer('mongo:8')
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start(),
    new GenericContainer('minio/minio:latest')
      .withCommand(['server', '/data'])
      .withEnvironment({ MINIO_ROOT_USER: MINIO_USER, MINIO_ROOT_PASSWORD: MINIO_PASSWORD })
      .withExposedPorts(9000)
      .withWaitStrategy(Wait.forHttp('/minio/health/live', 9000))
      .start(),
  ]);
  const address = (container: { getHost(): string; getMappedPort(port: number): number }, port: number) =>
    `${container.getHost()}:${container.getMappedPort(port)}`;
  return {
    endpoints: {
      redisUrl: `redis://${address(redis, 6379)}`,
      mongoUrl: `mongodb://${address(mongo, 27017)}`,
      s3: {
        endpoint: `http://${address(minio, 9000)}`,
        accessKeyId: MINIO_USER,
        secretAccessKey: MINIO_PASSWORD,
      },
    },
    async stop() {
      await Promise.allSettled([redis.stop(), mongo.stop(), minio.stop()]);
    },
  };
}
