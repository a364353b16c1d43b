import type { TestProject } from 'vitest/node';
import type { RunningStack } from './local-stack.ts';
import type { StackEndpoints } from './stack-endpoints.ts';

/**
 * Provides Redis, MongoDB-wire and S3 endpoints to every test file, in this order of preference:
 * 1. given: TEST_REDIS_URL, TEST_MONGO_URL and TEST_S3_ENDPOINT (with TEST_S3_ACCESS_KEY_ID and
 *    TEST_S3_SECRET_ACCESS_KEY) all set;
 * 2. TEST_STACK=containers: real images through testcontainers (needs a Docker engine);
 * 3. otherwise local processes: redis-server, jongodb and s3rver, on free ports.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = endpointsFromEnvironment();
  let stack: RunningStack | undefined;
  if (given === undefined) {
    stack =
      process.env.TEST_STACK === 'containers'
        ? await (await import('./containers-stack.ts')).startContainers()
        : await (await import('./local-stack.ts')).startLocalProcesses();
  }
  project.provide('stack', given ?? (stack as RunningStack).endpoints);
  return async () => {
    await stack?.stop();
  };
}

function endpointsFromEnvironment(): StackEndpoints | undefined {
  const { TEST_REDIS_URL, TEST_MONGO_URL, TEST_S3_ENDPOINT } = process.env;
  if (!TEST_REDIS_URL || !TEST_MONGO_URL || !TEST_S3_ENDPOINT) return undefined;
  return {
    redisUrl: TEST_REDIS_URL,
    mongoUrl: TEST_MONGO_URL,
    s3: {
      endpoint: TEST_S3_ENDPOINT,
      accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID ?? 'S3RVER',
      secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY ?? 'S3RVER',
    },
  };
}
