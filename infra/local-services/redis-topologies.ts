import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type OwnedProcess, spawnUntilReady } from './child-process.ts';
import { freePort } from './free-port.ts';

/**
 * Redis topologies on free ports of 127.0.0.1, for tests and benchmarks: a Cluster of masters
 * (`redis-cli --cluster create`), and a primary with a replica watched by three sentinels. In
 * memory only; each in a temporary directory of its own, removed by `stop`.
 */

export interface RedisNodeProcess {
  readonly port: number;
  readonly process: OwnedProcess;
}

export interface LocalRedisCluster {
  readonly masters: readonly RedisNodeProcess[];
  /** `127.0.0.1:p1,127.0.0.1:p2,…`: the value of REDIS_CLUSTER_NODES. */
  readonly nodes: string;
  stop(): Promise<void>;
}

export interface LocalSentinelGroup {
  readonly masterName: string;
  readonly primary: RedisNodeProcess;
  readonly replica: RedisNodeProcess;
  readonly sentinels: readonly RedisNodeProcess[];
  /** `127.0.0.1:s1,…`: the value of REDIS_SENTINELS. */
  readonly sentinelNodes: string;
  stop(): Promise<void>;
}

const IN_MEMORY = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--daemonize', 'no'];
const LOGS = ['--loglevel', 'notice', '--logfile', ''];

async function startNode(name: string, port: number, extra: readonly string[]): Promise<RedisNodeProcess> {
  const args = ['--port', String(port), ...IN_MEMORY, ...LOGS, ...extra];
  const { process } = await spawnUntilReady(name, 'redis-server', args, /Ready to accept connections/);
  return { port, process };
}

function run(command: string, args: readonly string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output.slice(-2_000)}`));
    });
  });
}

async function until(what: string, timeoutMs: number, test: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await test().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ask<T>(port: number, command: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

/** Starts `masters` cluster-enabled redis-servers, joins them in one Cluster, waits for `cluster_state:ok`. */
export async function startRedisCluster(masters = 3): Promise<LocalRedisCluster> {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
  const started: RedisNodeProcess[] = [];
  const stop = async () => {
    await Promise.allSettled(started.map((node) => node.process.stop()));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      const dir = join(directory, String(port));
      await mkdir(dir);
      started.push(
        await startNode(`redis-cluster-${i + 1}`, port, [
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          join(dir, 'nodes.conf'),
          '--cluster-node-timeout',
          '2000',
          '--dir',
          dir,
        ]),
      );
    }
    const addresses = started.map(({ port }) => `127.0.0.1:${port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    await until('cluster_state:ok on every node', 20_000, async () => {
      const states = await Promise.all(
        started.map(({ port }) => ask(port, async (redis) => String(await redis.call('CLUSTER', 'INFO')))),
      );
      return states.every((info) => /^cluster_state:ok/m.test(info));
    });
    return { masters: started, nodes: addresses.join(','), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface SentinelGroupOptions {
  readonly masterName?: string;
  /** How long the sentinels wait before they call the primary down (ms). */
  readonly downAfterMs?: number;
  readonly failoverTimeoutMs?: number;
}

/** Starts a primary, one replica of it, and three sentinels monitoring it (quorum 2). */
export async function startSentinelGroup(options: SentinelGroupOptions = {}): Promise<LocalSentinelGroup> {
  const masterName = options.masterName ?? 'gateway';
  const directory = await mkdtemp(join(tmpdir(), 'gateway-redis-sentinel-'));
  const started: RedisNodeProcess[] = [];
  const stop = async () => {
    await Promise.allSettled(started.map((node) => node.process.stop()));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const primary = await startNode('redis-primary', await freePort(), ['--dir', directory]);
    started.push(primary);
    const replicaPort = await freePort();
    const replica = await startNode('redis-replica', replicaPort, [
      '--dir',
      directory,
      '--replicaof',
      '127.0.0.1',
      String(primary.port),
    ]);
    started.push(replica);
    await until('the replica in sync', 20_000, async () =>
      /master_link_status:up/.test(await ask(replica.port, (redis) => redis.info('replication'))),
    );
    const sentinels: RedisNodeProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(directory, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'daemonize no',
          `dir ${directory}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 1_000}`,
          `sentinel failover-timeout ${masterName} ${options.failoverTimeoutMs ?? 5_000}`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      const { process } = await spawnUntilReady(
        `redis-sentinel-${i + 1}`,
        'redis-sentinel',
        [file],
        /\+monitor master/,
      );
      const sentinel = { port, process };
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    // Each sentinel knows the replica and the other sentinels before a failover can be voted.
    await until('the sentinels see the replica and each other', 20_000, async () => {
      const views = await Promise.all(
        sentinels.map(({ port }) =>
          ask(port, async (redis) => (await redis.call('SENTINEL', 'master', masterName)) as string[]),
        ),
      );
      return views.every((view) => {
        const field = (name: string) => Number(view[view.indexOf(name) + 1]);
        return field('num-slaves') >= 1 && field('num-other-sentinels') >= 2;
      });
    });
    const sentinelNodes = sentinels.map(({ port }) => `127.0.0.1:${port}`).join(',');
    return { masterName, primary, replica, sentinels, sentinelNodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The address the sentinels name as the primary now (`host:port`), or null. */
export async function sentinelPrimaryOf(group: LocalSentinelGroup): Promise<string | null> {
  const first = group.sentinels[0];
  if (first === undefined) return null;
  const address = (await ask(first.port, (redis) =>
    redis.call('SENTINEL', 'get-master-addr-by-name', group.masterName),
  )) as string[] | null;
  return address === null ? null : address.join(':');
}
