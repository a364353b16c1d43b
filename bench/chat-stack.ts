/**
 * What `npm run bench` (run-bench.ts) measures, started on free 127.0.0.1 ports and owned by pid
 * (./processes.ts): the mock upstream, the Portkey peer and the floor proxy (./floor-proxy.ts) once
 * for the run, and for each phase a gateway of its own: an empty Redis, an s3rver, a fresh SQLite
 * file (the store `npm start` uses), the api, its accounts and keys.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../infra/local-services/free-port.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { type BenchApi, startBenchApi } from './bench-api.ts';
import { MEMORY_PRELOAD } from './memory.ts';
import { type Owned, own, pinRunning, startProcess, waitForHttp } from './processes.ts';

/** Where a run keeps its files, and how its processes are placed. */
export interface ChatRun {
  readonly root: string;
  readonly harness: string;
  readonly logs: string;
  /** Each phase's scratch folder: its SQLite file, s3rver's data, the api's memory answers. */
  readonly stores: string;
  readonly serverCpus: string;
  readonly storesCpus: string;
  readonly accounts: number;
  readonly log: (line: string) => void;
}

export interface Peers {
  readonly mock: Owned;
  readonly mockUrl: string;
  readonly portkey: Owned;
  readonly portkeyUrl: string;
  readonly floor: StartedFloor;
  /** The Redis of the floor's one script call per request. */
  readonly floorRedisUrl: string;
}

export interface StartedFloor {
  readonly owned: Owned;
  readonly url: string;
}

/** The spec's limit of active keys per account. */
const KEYS_PER_ACCOUNT = 25;

/** A node server of the run on the server CPU (`{port}` in its arguments: a free one), once `probe` answers. */
async function startServer(
  run: ChatRun,
  name: string,
  args: readonly string[],
  probe: string,
  options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<StartedFloor> {
  const port = await freePort();
  const owned = startProcess({
    name,
    command: process.execPath,
    args: args.map((arg) => arg.replace('{port}', String(port))),
    cwd: options.cwd ?? run.harness,
    env: options.env,
    logFile: join(run.logs, `${name.replace(/\W+/g, '-')}.log`),
    cpus: run.serverCpus,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}${probe}`, owned);
  return { owned, url };
}

/** The mock upstream, the Portkey peer and the floor proxy: started once for the whole run. */
export async function startPeers(run: ChatRun): Promise<Peers> {
  const mock = await startServer(run, 'mock-upstream', ['mock-upstream.mjs', '--port', '{port}'], '/health');
  const portkey = await startServer(
    run,
    'portkey',
    ['portkey-loopback.mjs', '--port={port}', '--headless'],
    '/',
  );
  const floorRedis = await startRedisServer('redis-server', { detached: true });
  pinRunning(own('redis-server (floor)', floorRedis.process.child).pid, run.storesCpus);
  const floor = await startFloor(run, mock.url, floorRedis.url, 'floor-proxy');
  return {
    mock: mock.owned,
    mockUrl: mock.url,
    portkey: portkey.owned,
    portkeyUrl: portkey.url,
    floor,
    floorRedisUrl: floorRedis.url,
  };
}

/**
 * A floor proxy on the server CPU, with the memory preload the api gets (./memory-preload.ts),
 * writing into `memoryDir` when given.
 */
export function startFloor(
  run: ChatRun,
  upstream: string,
  redisUrl: string,
  name: string,
  memoryDir?: string,
): Promise<StartedFloor> {
  const args = ['--import', MEMORY_PRELOAD, join(run.root, 'bench', 'floor-proxy.ts')];
  args.push('--port', '{port}', '--upstream', upstream, '--redis', redisUrl);
  const env = memoryDir === undefined ? undefined : { ...process.env, BENCH_MEMORY_DIR: memoryDir };
  return startServer(run, name, args, '/', { cwd: run.root, env });
}

/** The gateway of one phase: its api and stores, and the keys of its accounts. */
export interface Gateway extends BenchApi {
  readonly scratch: string;
  readonly sqlitePath: string;
  /** Where the api writes its memory when asked (./memory-preload.ts). */
  readonly memoryDir: string;
  readonly loadKeys: readonly string[];
  /** The probe account's key: outside the load keys' file, so no load spends its rate limit. */
  readonly probeKey: string;
  readonly keysFile: string;
}

/** How a phase's gateway reaches the mock: its one environment key, or this many API channels. */
export interface GatewayUpstream {
  readonly channels?: number;
  /** Further api environment (a variant's one change, e.g. the request log off). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * A phase's gateway on fresh stores, `nodeFlags` given to its api, ready and with its keys. With
 * `upstream.channels`, the mock is reached through that many channels made by the operator API
 * (equal weights, one priority) instead of `OPENAI_API_KEY`.
 */
export async function startGateway(
  run: ChatRun,
  peers: Peers,
  phase: string,
  nodeFlags: readonly string[] = [],
  upstream: GatewayUpstream = {},
): Promise<Gateway> {
  const started = Date.now();
  const scratch = join(run.stores, phase);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const sqlitePath = join(scratch, 'gateway.db');
  const memoryDir = join(scratch, 'memory');
  const api = await startBenchApi({
    root: run.root,
    phase,
    sqlitePath,
    s3Dir: join(scratch, 's3'),
    bucket: 'bench-media',
    logDir: run.logs,
    env: {
      BENCH_MEMORY_DIR: memoryDir,
      OPENAI_BASE_URL: `${peers.mockUrl}/v1`,
      ...(upstream.channels === undefined ? { OPENAI_API_KEY: 'sk-bench-anything' } : {}),
      CHANNEL_SECRET_KEY: randomBytes(32).toString('base64'),
      CATALOGUE_PATH: join(run.root, 'bench', 'catalogue.json'),
      ...upstream.env,
    },
    nodeFlags: [...nodeFlags, '--import', MEMORY_PRELOAD],
    cpus: run.serverCpus,
    redisCpus: run.storesCpus,
  });
  try {
    for (let i = 0; i < (upstream.channels ?? 0); i += 1) {
      await adminClient(api.url, api.adminToken)('/channels', {
        provider: 'openai',
        name: `bench-${i}`,
        api_key: `sk-bench-channel-${i}`,
        base_url: `${peers.mockUrl}/v1`,
      });
    }
    const keys = await makeKeys(run, api.url, api.adminToken, phase);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    run.log(
      `${phase}: api ${api.url} (pid ${api.api.pid}), ${keys.loadKeys.length} keys, ready in ${seconds} s`,
    );
    return { ...api, ...keys, scratch, sqlitePath, memoryDir };
  } catch (err) {
    await api.stop();
    throw err;
  }
}

/** The load accounts' keys (in a file for wrk, outside the results) and the probe account's key. */
async function makeKeys(run: ChatRun, url: string, adminToken: string, phase: string) {
  const admin = adminClient(url, adminToken);
  const accounts = Array.from({ length: run.accounts }, (_, i) => `load-${i}`);
  const loadKeys = (
    await Promise.all(accounts.map((label) => accountWithKeys(admin, label, KEYS_PER_ACCOUNT)))
  ).flat();
  const [probeKey = ''] = await accountWithKeys(admin, 'probe', 1);
  const keysFile = join(run.harness, `bench-keys-${phase}.txt`);
  writeFileSync(keysFile, `${loadKeys.join('\n')}\n`, { mode: 0o600 });
  return { loadKeys, probeKey, keysFile };
}
