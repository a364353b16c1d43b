import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The Redis-dependent tests again, on a 3-master Cluster (`npm run test:redis-cluster`): the global
 * setup starts it (TEST_REDIS_MODE=cluster) and every test app reaches it by REDIS_CLUSTER_NODES.
 * Admission, rate limits across replicas, holds, settlements, key-cache invalidation, queues and
 * workers, console sessions and sign-in limits, the channel breakers and registry, the live
 * catalogue's changes across replicas: the code whose keys must share hash tags.
 */
export const REDIS_CLUSTER_TESTS = [
  'test/integration/shared/billing/admission.test.ts',
  'test/integration/shared/billing/holds.test.ts',
  'test/integration/shared/billing/hold-lease.test.ts',
  'test/integration/shared/billing/group-commit.test.ts',
  'test/integration/shared/billing/settlement.test.ts',
  'test/integration/shared/accounts/key-cache.test.ts',
  'test/integration/api/admission.test.ts',
  'test/integration/api/replicas.test.ts',
  'test/integration/api/job-waiter.test.ts',
  'test/integration/api/console/sessions.test.ts',
  'test/integration/api/console/sign-in-limits.test.ts',
  'test/integration/shared/redis-topologies/cluster-keys.test.ts',
  'test/integration/shared/channels/channel-breaker.test.ts',
  'test/integration/api/channels-replicas.test.ts',
  'test/integration/api/catalogue/live-catalogue.test.ts',
];

// Read by the global setup, in this process: it starts the Cluster.
process.env.TEST_REDIS_MODE ??= 'cluster';

// Not mergeConfig: it would add these files to the base's `include` instead of replacing it.
export default defineConfig({ ...base, test: { ...base.test, include: REDIS_CLUSTER_TESTS } });
