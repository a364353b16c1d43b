/**
 * Start-up with a Redis that cannot be used as configured: one message naming the setting, and
 * the process exits 1 before it opens a port. A plain redis-server given as a Cluster seed, a
 * cluster-enabled node in no Cluster (cluster_state:fail), seeds or sentinels that do not answer,
 * a master name no sentinel monitors, and two modes at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnUntilReady } from '../../../../infra/local-services/child-process.ts';
import { freePort } from '../../../../infra/local-services/free-port.ts';
import { type LocalRedis, startRedisServer } from '../../../../infra/local-services/redis-server.ts';
import {
  type LocalSentinelGroup,
  type RedisNodeProcess,
  startSentinelGroup,
} from '../../../../infra/local-services/redis-topologies.ts';
import { checkRedisTopology, RedisTopologyError } from '../../../../shared/src/redis/topology-check.ts';
import { type SpawnedEntry, spawnEntry } from '../../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../../helpers/test-config.ts';

let plain: LocalRedis;
let lonely: RedisNodeProcess;
let group: LocalSentinelGroup;
const running: SpawnedEntry[] = [];

beforeAll(async () => {
  plain = await startRedisServer();
  const port = await freePort();
  const { process } = await spawnUntilReady(
    'redis-lonely-cluster-node',
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `/tmp/gateway-lonely-${port}.conf`,
      '--cluster-port',
      String(await freePort()),
    ],
    /Ready to accept connections/,
  );
  lonely = { port, process };
  group = await startSentinelGroup();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([plain?.process.stop(), lonely?.process.stop(), group?.stop()]);
});

afterEach(() => {
  for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
});

const node = (port: number) => ({ host: '127.0.0.1', port });
const cluster = (...ports: number[]) =>
  ({
    mode: 'cluster',
    nodes: ports.map(node),
    username: undefined,
    password: undefined,
    tls: false,
  }) as const;
const sentinel = (masterName: string, ...ports: number[]) =>
  ({
    mode: 'sentinel',
    sentinels: ports.map(node),
    masterName,
    username: undefined,
    password: undefined,
    sentinelPassword: undefined,
    tls: false,
  }) as const;
const portOf = (url: string) => Number(new URL(url).port);

describe('checkRedisTopology', () => {
  it('refuses a plain redis-server as a Cluster seed', async () => {
    await expect(checkRedisTopology(cluster(portOf(plain.url)))).rejects.toThrow(
      new RedisTopologyError(
        `REDIS_CLUSTER_NODES: 127.0.0.1:${portOf(plain.url)} is not a Cluster node (cluster support disabled); for one node set REDIS_URL instead`,
      ),
    );
  });

  it('refuses a Cluster that is not ready', async () => {
    await expect(checkRedisTopology(cluster(lonely.port))).rejects.toThrow(
      `REDIS_CLUSTER_NODES: the Cluster is not ready (127.0.0.1:${lonely.port}: cluster_state:fail)`,
    );
  });

  it('refuses seeds that do not answer', async () => {
    // A free port: nothing listens there.
    await expect(checkRedisTopology(cluster(await freePort()))).rejects.toThrow(
      /^REDIS_CLUSTER_NODES: no node answered \(127\.0\.0\.1:\d+: .+\)$/,
    );
  });

  it('refuses a master name that no sentinel monitors, and accepts the monitored one', async () => {
    const ports = group.sentinels.map((s) => s.port);
    await expect(checkRedisTopology(sentinel('nope', ...ports))).rejects.toThrow(
      `REDIS_SENTINEL_MASTER: the sentinels (${ports.map((p) => `127.0.0.1:${p}`).join(', ')}) monitor no master named "nope"`,
    );
    await expect(checkRedisTopology(sentinel(group.masterName, ...ports))).resolves.toBeUndefined();
  });

  it('refuses sentinels that do not answer as sentinels', async () => {
    await expect(checkRedisTopology(sentinel('gateway', portOf(plain.url)))).rejects.toThrow(
      /^REDIS_SENTINELS: no sentinel answered \(127\.0\.0\.1:\d+: ERR unknown command/,
    );
  });
});

// Each case starts the api entry (the whole api and channels graph loads before the check): on a
// shared, busy machine that alone can pass the default 20 s.
describe('the api entry with an unusable Redis', { timeout: 60_000 }, () => {
  const refuses = async (env: Record<string, string | undefined>, message: string) => {
    const port = await freePort();
    const api = spawnEntry('api/src/main.ts', testEnvironment({ PORT: String(port), ...env }));
    running.push(api);
    expect((await api.exited()).code).toBe(1);
    expect(api.output()).toContain(`api failed to start: ${message}`);
  };

  it('stops naming REDIS_CLUSTER_NODES for a seed that is not a Cluster node', async () => {
    await refuses(
      { REDIS_CLUSTER_NODES: `127.0.0.1:${portOf(plain.url)}` },
      `REDIS_CLUSTER_NODES: 127.0.0.1:${portOf(plain.url)} is not a Cluster node`,
    );
  });

  it('stops naming REDIS_SENTINEL_MASTER for an unknown name', async () => {
    await refuses(
      { REDIS_SENTINELS: group.sentinelNodes, REDIS_SENTINEL_MASTER: 'nope' },
      'REDIS_SENTINEL_MASTER: the sentinels',
    );
  });

  it('stops naming both settings when two modes are set', async () => {
    const port = await freePort();
    const api = spawnEntry('api/src/main.ts', {
      ...testEnvironment({ PORT: String(port) }),
      REDIS_URL: plain.url,
      REDIS_SENTINELS: group.sentinelNodes,
      REDIS_SENTINEL_MASTER: group.masterName,
    });
    running.push(api);
    expect((await api.exited()).code).toBe(1);
    expect(api.output()).toContain('REDIS_URL and REDIS_SENTINELS are both set');
  });
});
