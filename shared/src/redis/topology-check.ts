import { Redis } from 'ioredis';
import { describeNodes, type RedisNode, type RedisSettings } from './redis-settings.ts';

/** How long each seed or sentinel has to answer at start-up. */
const PROBE_TIMEOUT_MS = 3_000;

/** Why start-up stops: one line naming the setting (the process prints it and exits 1). */
export class RedisTopologyError extends Error {
  override readonly name = 'RedisTopologyError';
}

/**
 * Before a process connects for good, checks that the Redis its settings name can be used: a
 * Cluster whose seeds answer `cluster_state:ok`, sentinels that know the master name. Throws a
 * RedisTopologyError naming the setting otherwise. One node is checked by its first PING as before.
 */
export async function checkRedisTopology(settings: RedisSettings): Promise<void> {
  if (settings.mode === 'cluster') await checkCluster(settings.nodes, settings);
  if (settings.mode === 'sentinel') await checkSentinels(settings);
}

type Probe = { node: RedisNode; answer: string | null } | { node: RedisNode; error: string };

async function probe(
  node: RedisNode,
  auth: { username?: string | undefined; password?: string | undefined; tls: boolean },
  command: (redis: Redis) => Promise<string | null>,
): Promise<Probe> {
  const redis = new Redis({
    host: node.host,
    port: node.port,
    username: auth.username,
    password: auth.password,
    ...(auth.tls ? { tls: {} } : {}),
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    commandTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    enableReadyCheck: false,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return { node, answer: await command(redis) };
  } catch (err) {
    return { node, error: err instanceof Error ? err.message || err.name : String(err) };
  } finally {
    redis.disconnect();
  }
}

function failures(probes: readonly Probe[]): string {
  return probes.map((p) => `${describeNodes([p.node])}: ${'error' in p ? p.error : p.answer}`).join('; ');
}

async function checkCluster(
  nodes: readonly RedisNode[],
  auth: { username: string | undefined; password: string | undefined; tls: boolean },
): Promise<void> {
  const probes = await Promise.all(
    nodes.map((node) =>
      probe(node, auth, async (redis) => {
        const info = String(await redis.call('CLUSTER', 'INFO'));
        return /^cluster_state:(\S+)/m.exec(info)?.[1] ?? 'unknown';
      }),
    ),
  );
  if (probes.some((p) => 'answer' in p && p.answer === 'ok')) return;
  const answered = probes.filter((p) => 'answer' in p);
  const disabled = probes.find((p) => 'error' in p && /cluster support disabled/i.test(p.error));
  if (disabled !== undefined) {
    throw new RedisTopologyError(
      `REDIS_CLUSTER_NODES: ${describeNodes([disabled.node])} is not a Cluster node (cluster support disabled); for one node set REDIS_URL instead`,
    );
  }
  if (answered.length > 0) {
    throw new RedisTopologyError(
      `REDIS_CLUSTER_NODES: the Cluster is not ready (${answered.map((p) => `${describeNodes([p.node])}: cluster_state:${'answer' in p ? p.answer : ''}`).join('; ')})`,
    );
  }
  throw new RedisTopologyError(`REDIS_CLUSTER_NODES: no node answered (${failures(probes)})`);
}

async function checkSentinels(settings: Extract<RedisSettings, { mode: 'sentinel' }>): Promise<void> {
  const auth = { password: settings.sentinelPassword, tls: settings.tls };
  const probes = await Promise.all(
    settings.sentinels.map((node) =>
      probe(node, auth, async (redis) => {
        const address = (await redis.call('SENTINEL', 'get-master-addr-by-name', settings.masterName)) as
          | string[]
          | null;
        return address === null ? null : address.join(':');
      }),
    ),
  );
  if (probes.some((p) => 'answer' in p && p.answer !== null)) return;
  const answered = probes.filter((p) => 'answer' in p);
  if (answered.length > 0) {
    throw new RedisTopologyError(
      `REDIS_SENTINEL_MASTER: the sentinels (${describeNodes(answered.map((p) => p.node))}) monitor no master named "${settings.masterName}"`,
    );
  }
  throw new RedisTopologyError(`REDIS_SENTINELS: no sentinel answered (${failures(probes)})`);
}
