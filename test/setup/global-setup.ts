import type { TestProject } from 'vitest/node';
import { type LocalRedisCluster, startRedisCluster } from '../../infra/local-services/redis-topologies.ts';
import type { RunningStack } from './local-stack.ts';
import type { StackEndpoints } from './stack-endpoints.ts';

/**
 * Provides Redis, MongoDB-wire and S3 endpoints to every test file, in this order of preference:
 * 1. given: TEST_REDIS_URL, TEST_MONGO_URL and TEST_S3_ENDPOINT (with TEST_S3_ACCESS_KEY_ID and
 *    TEST_S3_SECRET_ACCESS_KEY) all set;
 * 2. TEST_STACK=containers: real images through testcontainers (needs a Docker engine);
 * 3. otherwise local processes: redis-server, jongodb and s3rver, on free ports.
 * With TEST_REDIS_MODE=cluster (`npm run test:redis-cluster`), the tests' Redis is a 3-master
 * Cluster besides: the one of TEST_REDIS_CLUSTER_NODES, or one started here on free ports.
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
  const endpoints = given ?? (stack as RunningStack).endpoints;
  let cluster: LocalRedisCluster | undefined;
  let clusterNodes: string | undefined;
  if (process.env.TEST_REDIS_MODE === 'cluster') {
    clusterNodes = process.env.TEST_REDIS_CLUSTER_NODES;
    if (!clusterNodes) {
      cluster = await startRedisCluster(3);
      clusterNodes = cluster.nodes;
    }
  } else if (process.env.TEST_REDIS_MODE !== undefined && process.env.TEST_REDIS_MODE !== 'single') {
    throw new Error(`TEST_REDIS_MODE must be single or cluster, not ${process.env.TEST_REDIS_MODE}`);
  }
  project.provide(
    'stack',
    clusterNodes === undefined ? endpoints : { ...endpoints, redisClusterNodes: clusterNodes },
  );
  return async () => {
    await cluster?.stop();
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
