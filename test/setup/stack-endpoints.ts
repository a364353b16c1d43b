/** Where the test stores live; given to every test file by the global setup (vitest `provide`). */
export interface StackEndpoints {
  /** One redis-server: what tests that start no topology of their own use. */
  readonly redisUrl: string;
  /**
   * With `TEST_REDIS_MODE=cluster`: the seeds of a 3-master Cluster (`REDIS_CLUSTER_NODES`), used by
   * `testEnvironment` instead of `redisUrl` (`npm run test:redis-cluster`).
   */
  readonly redisClusterNodes?: string;
  readonly mongoUrl: string;
  readonly s3: { readonly endpoint: string; readonly accessKeyId: string; readonly secretAccessKey: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackEndpoints;
  }
}
