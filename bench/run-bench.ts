/**
 * `npm run bench`: the gateway side by side with the same mock upstream called directly and with a
 * peer gateway (Portkey), using the load harness in bench/harness/. Starts everything itself on
 * free 127.0.0.1 ports, writes bench/RESULTS.md and raw results under bench/results/<stamp>/, and
 * stops what it started (only that) at the end, on failure, on Ctrl-C and on its time limit.
 *
 * The store is the one `npm start` uses: SQLite (node:sqlite, WAL), a fresh file per phase
 * (`SQLITE_PATH=<results>/stores/<phase>/gateway.db`, MONGO_URL unset), nothing pruned. After each
 * phase the file is read read-only (./store-file.ts): its size, its ledger rows, and every wallet
 * against the sum of its ledger entries; the api's event-loop delay comes from a preload
 * (./loop-delay-preload.ts) loaded with `--import`, without changing the api.
 * Knobs (env): see "How to run" in bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../infra/local-services/free-port.ts';
import { startRedisServer } from '../infra/local-services/redis-server.ts';
import { startS3Server } from '../infra/local-services/s3-server.ts';
import { benchApiEnv } from './api-env.ts';
import { accountWithKeys, adminClient } from './bench-accounts.ts';
import { LOOP_DELAY_PRELOAD, loopDelayOf } from './loop-delay.ts';
import { type ManyStreamsResult, manyStreams } from './many-streams.ts';
import {
  jitDumpFlags,
  type OnCpuSummary,
  perfUnusable,
  readSamples,
  recordCpus,
  summarizeSamples,
} from './on-cpu.ts';
import {
  killAllNow,
  type Owned,
  own,
  pinRunning,
  runToEnd,
  startProcess,
  stopAll,
  waitForHttp,
} from './processes.ts';
import { type ProfileWindow, summarizeProfile } from './profile-summary.ts';
import { readRedisWork } from './redis-work.ts';
import { type PhaseStore, type RunInfo, writeResults } from './report.ts';
import { STAGE_TIMING_PRELOAD, stageTimingOf } from './stage-timing.ts';
import { checkLedger, describeVerdict, formatSize, snapshotStore } from './store-file.ts';
import { workTreeLabel } from './work-tree.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HARNESS_SOURCE = join(ROOT, 'bench', 'harness');
const HARNESS = join(ROOT, '.local', 'bench-harness');
/** The libraries' own cost, beside the api: always from the work tree, whatever BENCH_REF measures. */
const FLOOR_PROXY = join(ROOT, 'bench', 'floor-proxy.ts');
const env = process.env;
const num = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));

const settings = {
  duration: num('BENCH_DURATION', 10),
  rounds: num('BENCH_ROUNDS', 3),
  warmupFirst: num('BENCH_WARMUP_FIRST', 20),
  warmup: num('BENCH_WARMUP', 3),
  connections: num('BENCH_CONNECTIONS', 50),
  delays: (env.BENCH_DELAYS ?? '0,50').split(',').map(Number),
  accounts: num('BENCH_ACCOUNTS', 8),
  warmupNext: num('BENCH_WARMUP_NEXT', 5),
  profileSeconds: num('BENCH_PROFILE_SECONDS', 20),
  profileDelay: num('BENCH_PROFILE_DELAY', 0),
  // The stage-timing phase: seconds of load per target (0 skips it) and its upstream delay.
  stageSeconds: num('BENCH_STAGE_SECONDS', 10),
  stageDelay: num('BENCH_STAGE_DELAY', 50),
  // The on-CPU phase (Linux perf): seconds recorded per target and delay (0 skips it), and the
  // upstream delays it runs at.
  onCpuSeconds: num('BENCH_ONCPU_SECONDS', 10),
  onCpuDelays: (env.BENCH_ONCPU_DELAYS ?? '0,50').split(',').map(Number),
  // Seconds of load on both targets first: a fresh api compiles its hot path for several seconds
  // (on V8's helper threads, which the phase counts), the floor has served the load phases.
  onCpuWarmup: num('BENCH_ONCPU_WARMUP', 10),
  // Seconds of load on a phase's fresh api alone before it is measured: the 0 ms load before the
  // load phases at an upstream delay, the one-at-a-time probe and the on-CPU cases, streams ten at
  // a time before the stream probes. A fresh api compiles its hot path for thousands of requests
  // (more than a phase's own warm-up gives it at 50 ms, one at a time, or in a probe's 1,500),
  // while the floor and Portkey, started once, have served the phases before. 0 leaves it out.
  apiWarmup: num('BENCH_API_WARMUP', 10),
  serverCpus: env.SERVER_CPUS ?? '1',
  // Redis defaults to the load generator's CPU, away from the server CPU (SQLite runs inside the
  // api, on the server CPU).
  storesCpus: env.STORES_CPUS ?? env.LOADGEN_CPUS ?? '0',
  loadgenCpus: env.LOADGEN_CPUS ?? '0',
  timeLimitS: num('BENCH_TIME_LIMIT_S', 960),
  // 1 keeps each phase's SQLite file in the results folder (default: removed once measured).
  keepStore: env.BENCH_KEEP_STORE === '1',
  // 0: no event-loop delay preload in the api.
  loopDelay: env.BENCH_LOOP_DELAY !== '0',
  // Streams held open at once in the many-streams phase (0 skips it).
  manyStreams: num('BENCH_MANY_STREAMS', 1000),
  // Un-timed requests per target before each probe (the probes' phases start a fresh api, whose hot
  // path is still being compiled after the harness's default of 200; Portkey has served the load
  // phases by then). With the 1000 timed streams of the last probe, under a key's 3000 a minute.
  probeWarmup: num('BENCH_PROBE_WARMUP', 1500),
  // Timed requests per target of the one-at-a-time probe: its line is decided by hundredths of a
  // millisecond at p50, which the harness's default of 200 moves from run to run. With the warm-up,
  // under a key's 3000 a minute.
  sequentialRequests: num('BENCH_SEQUENTIAL_REQUESTS', 1000),
  // Timed streams per target of the 10- and 1-at-a-time stream probes: the harness's default of
  // 200 is about 0.15 s of the ten-stream loop, less than one young-generation collection of the
  // api, so its median moved by more than a millisecond between runs of the same code. With the
  // warm-up, under a key's 3000 a minute.
  streamRequests: num('BENCH_STREAM_REQUESTS', 1200),
};
/** The stream probe's default concurrency, also the on-CPU streams case's and its warm-up's. */
const STREAM_CONCURRENCY = 10;
/** The mock's model for a stream of 20 chunks sent at once (the stream probe's shape). */
const FAST_STREAM = 'mock-delay-0-chunks-20-chunkdelay-0';
/** Keys of the probe account: one for each stream probe of the streaming phase. */
const PROBE_KEYS = 3;
/** A load the on-CPU phase records: its name in the results, upstream delay, clients, streamed or not. */
interface OnCpuCase {
  readonly name: string;
  readonly delay: number;
  readonly connections: number;
  readonly stream: boolean;
}
/** The spec's limit of active keys per account. */
const KEYS_PER_ACCOUNT = 25;
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const OUT = join(ROOT, 'bench', 'results', stamp);
/** BENCH_REF=<commit>: measure that commit (extracted with git archive) instead of the work tree. */
const REF = env.BENCH_REF;
const LOGS = join(OUT, 'logs');
/** Each phase's scratch folder: its SQLite file, s3rver's data, the api's loop-delay samples. */
const STORES = join(OUT, 'stores');
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

/** Copies the harness into the git-ignored scratch folder and installs its dependencies once. */
async function prepareHarness(): Promise<void> {
  if (!existsSync(join(HARNESS_SOURCE, 'bench.mjs')))
    throw new Error(`harness not found at ${HARNESS_SOURCE}`);
  mkdirSync(HARNESS, { recursive: true });
  for (const name of readdirSync(HARNESS_SOURCE)) {
    if (name === 'node_modules' || name === 'results') continue;
    cpSync(join(HARNESS_SOURCE, name), join(HARNESS, name), { recursive: true, force: true });
  }
  // The one change to the copy: a superset of its wrk script that rotates API keys (see the file).
  cpSync(join(ROOT, 'bench', 'wrk-keys.lua'), join(HARNESS, 'wrk-post.lua'), { force: true });
  if (!existsSync(join(HARNESS, 'node_modules', '@portkey-ai', 'gateway'))) {
    log('installing the harness dependencies (autocannon, @portkey-ai/gateway) in .local/bench-harness');
    await runToEnd({
      name: 'npm ci',
      command: 'npm',
      args: ['ci', '--no-audit', '--no-fund'],
      cwd: HARNESS,
      logFile: join(LOGS, 'npm-install.log'),
    });
  }
}

interface Peers {
  readonly mock: Owned;
  readonly mockUrl: string;
  readonly portkey: Owned;
  readonly portkeyUrl: string;
  /** The floor proxy (bench/floor-proxy.ts) and the Redis of its one script call per request. */
  readonly floor: Owned;
  readonly floorUrl: string;
  readonly floorRedisUrl: string;
}

/** The mock upstream, the Portkey peer and the floor proxy: started once for the whole run. */
async function startPeers(): Promise<Peers> {
  const mockPort = await freePort();
  const mock = startProcess({
    name: 'mock-upstream',
    command: process.execPath,
    args: ['mock-upstream.mjs', '--port', String(mockPort)],
    cwd: HARNESS,
    logFile: join(LOGS, 'mock.log'),
    cpus: settings.serverCpus,
  });
  const mockUrl = `http://127.0.0.1:${mockPort}`;
  await waitForHttp(`${mockUrl}/health`, mock);
  const portkeyPort = await freePort();
  const portkey = startProcess({
    name: 'portkey',
    command: process.execPath,
    args: ['portkey-loopback.mjs', `--port=${portkeyPort}`, '--headless'],
    cwd: HARNESS,
    logFile: join(LOGS, 'portkey.log'),
    cpus: settings.serverCpus,
  });
  const portkeyUrl = `http://127.0.0.1:${portkeyPort}`;
  await waitForHttp(`${portkeyUrl}/`, portkey);
  const floorRedis = await startRedisServer('redis-server', { detached: true });
  pinRunning(own('redis-server (floor)', floorRedis.process.child).pid, settings.storesCpus);
  const { owned: floor, url: floorUrl } = await startFloor({ mockUrl, redisUrl: floorRedis.url });
  return { mock, mockUrl, portkey, portkeyUrl, floor, floorUrl, floorRedisUrl: floorRedis.url };
}

/**
 * A floor proxy (bench/floor-proxy.ts) on a free port of the server CPU, once it answers. `label`
 * names a phase's own one (its process and log file); `preload` and `env` go to its node.
 */
/** A floor proxy started by `startFloor`: its process and its address. */
interface StartedFloor {
  readonly owned: Owned;
  readonly url: string;
}

async function startFloor(options: {
  readonly mockUrl: string;
  readonly redisUrl: string;
  readonly label?: string;
  readonly preload?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}): Promise<StartedFloor> {
  const port = await freePort();
  const suffix = options.label === undefined ? '' : `-${options.label}`;
  const owned = startProcess({
    name: options.label === undefined ? 'floor-proxy' : `floor-proxy (${options.label})`,
    command: process.execPath,
    args: [
      ...(options.preload ?? []),
      ...[FLOOR_PROXY, '--port', String(port), '--upstream', options.mockUrl, '--redis', options.redisUrl],
    ],
    cwd: ROOT,
    env: options.env,
    logFile: join(LOGS, `floor-proxy${suffix}.log`),
    cpus: settings.serverCpus,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/`, owned);
  return { owned, url };
}

/**
 * The gateway of one phase: its own empty Redis and s3rver, its own fresh SQLite file, the api,
 * accounts and keys.
 */
interface Gateway {
  readonly api: Owned;
  readonly url: string;
  readonly redis: Owned;
  readonly redisUrl: string;
  /** The phase's scratch folder (the SQLite file, s3rver's data, the api's loop-delay samples). */
  readonly scratch: string;
  readonly sqlitePath: string;
  readonly loadKeys: readonly string[];
  readonly probeKey: string;
  /** The probe account's keys (the first is `probeKey`): outside the load keys' file, so no load spends their rate limit. */
  readonly probeKeys: readonly string[];
  readonly keysFile: string;
  /** Stops the api alone (SIGTERM, then SIGKILL after API_STOP_GRACE_MS). */
  stopApi(): Promise<void>;
  stop(): Promise<void>;
}

const API_STOP_GRACE_MS = 25_000;

/** The tree the api runs from: the work tree, or BENCH_REF extracted under .local/bench-tree/. */
function apiTree(): { root: string; label: string } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, maxBuffer: 2 ** 30 });
  if (REF === undefined || REF === '') return { root: ROOT, label: workTreeLabel(ROOT) };
  const sha = git('rev-parse', '--short', `${REF}^{commit}`).toString().trim();
  const root = join(ROOT, '.local', 'bench-tree', sha);
  if (!existsSync(join(root, 'api', 'src', 'main.ts'))) {
    mkdirSync(root, { recursive: true });
    execFileSync('tar', ['-x', '-C', root], { input: git('archive', sha) });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  }
  return { root, label: `${sha} (BENCH_REF=${REF}, extracted to ${relative(ROOT, root)})` };
}
const TREE = apiTree();

async function startGateway(
  peers: Peers,
  phase: string,
  nodeFlags: readonly string[] = [],
): Promise<Gateway> {
  const started = Date.now();
  const scratch = join(STORES, phase);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const sqlitePath = join(scratch, 'gateway.db');
  const redisLocal = await startRedisServer('redis-server', { detached: true });
  const redis = own(`redis-server (${phase})`, redisLocal.process.child);
  pinRunning(redis.pid, settings.storesCpus);
  const s3 = await startS3Server(join(scratch, 's3'));
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const url = `http://127.0.0.1:${port}`;
  const preload = settings.loopDelay ? ['--import', LOOP_DELAY_PRELOAD] : [];
  const api = startProcess({
    name: `api (${phase})`,
    command: process.execPath,
    args: [...nodeFlags, ...preload, 'api/src/main.ts'],
    cwd: TREE.root,
    env: {
      ...benchApiEnv({ port, redisUrl: redisLocal.url, sqlitePath, s3, bucket: 'bench-media', adminToken }),
      BENCH_LOOP_DELAY_DIR: join(scratch, 'loop-delay'),
      BENCH_STAGES_DIR: join(scratch, 'stages'),
      OPENAI_BASE_URL: `${peers.mockUrl}/v1`,
      OPENAI_API_KEY: 'sk-bench-anything',
      CATALOGUE_PATH: join(ROOT, 'bench', 'catalogue.json'),
      ...(env.SETTLEMENT_FLUSH_MS === undefined ? {} : { SETTLEMENT_FLUSH_MS: env.SETTLEMENT_FLUSH_MS }),
    },
    logFile: join(LOGS, `api-${phase}.log`),
    cpus: settings.serverCpus,
  });
  const stop = async () => {
    await stopApi();
    await redis.stop();
    await s3.stop().catch(() => undefined);
  };
  // Longer than the api's own SHUTDOWN_TIMEOUT_MS (10 s): it may flush settlements before exiting.
  const stopApi = () => api.stop(API_STOP_GRACE_MS);
  try {
    await waitForHttp(`${url}/readyz`, api, (status) => status === 200);
    const admin = adminClient(url, adminToken);
    const accounts = Array.from({ length: settings.accounts }, (_, i) => `load-${i}`);
    const loadKeys = (
      await Promise.all(accounts.map((label) => accountWithKeys(admin, label, KEYS_PER_ACCOUNT)))
    ).flat();
    const probeKeys = await accountWithKeys(admin, 'probe', PROBE_KEYS);
    const probeKey = probeKeys[0] ?? '';
    const keysFile = join(HARNESS, 'bench-keys.txt'); // secrets stay out of bench/results
    writeFileSync(keysFile, `${loadKeys.join('\n')}\n`, { mode: 0o600 });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(
      `${phase}: api ${url} (pid ${api.pid}) on a fresh SQLite file ${relative(ROOT, sqlitePath)} and an empty Redis, ${loadKeys.length} keys, ready in ${seconds} s`,
    );
    return {
      api,
      url,
      redis,
      redisUrl: redisLocal.url,
      scratch,
      sqlitePath,
      loadKeys,
      probeKey,
      probeKeys,
      keysFile,
      stopApi,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function runHarness(
  script: string,
  label: string,
  extraEnv: Record<string, string>,
  cpus?: string,
): Promise<void> {
  const started = Date.now();
  await runToEnd({
    name: label,
    command: process.execPath,
    args: [script],
    cwd: HARNESS,
    env: { ...env, ...extraEnv },
    logFile: join(OUT, `${label}.txt`),
    cpus,
  });
  log(`${label} done in ${((Date.now() - started) / 1000).toFixed(0)} s (output: ${label}.txt)`);
}

const PORTKEY_HEADERS = {
  authorization: 'Bearer sk-mock',
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': '{{UPSTREAM}}/v1',
};

async function main(): Promise<void> {
  const begun = Date.now();
  mkdirSync(LOGS, { recursive: true });
  log(`results: ${OUT}`);
  await prepareHarness();
  const peers = await startPeers();
  log(`mock ${peers.mockUrl}, portkey ${peers.portkeyUrl}`);
  const direct = { name: 'direct', url: peers.mockUrl, headers: { authorization: 'Bearer sk-mock' } };
  const portkey = { name: 'portkey', url: peers.portkeyUrl, headers: PORTKEY_HEADERS };
  const floor = { name: 'floor', url: peers.floorUrl, headers: {} };
  const gatewayTarget = (gateway: Gateway, key: string) => ({
    name: 'gateway',
    url: gateway.url,
    headers: { authorization: `Bearer ${key}` },
    modelPrefix: 'openai/',
  });
  const targetsFile = (name: string, targets: unknown[]) => {
    const file = join(OUT, name);
    writeFileSync(file, JSON.stringify(targets, null, 2));
    return file;
  };
  const store: Record<string, PhaseStore> = {};
  const loadAverage: Record<string, [number, number]> = {};
  const inPhase = async (phase: string, run: (gateway: Gateway) => Promise<void>, flags: string[] = []) => {
    const gateway = await startGateway(peers, phase, flags);
    const before = os.loadavg()[0] ?? 0;
    const loadFrom = Date.now();
    try {
      await run(gateway);
    } finally {
      const loadTo = Date.now();
      loadAverage[phase] = [before, os.loadavg()[0] ?? 0];
      // The file when the load ended (the api still running), then after the api's graceful close
      // (queued settlements written, the WAL checkpointed), then the ledger check on the closed file.
      const atLoadEnd = snapshotStore(gateway.sqlitePath);
      const redisWork = await readRedisWork(gateway.redisUrl);
      await gateway.stopApi();
      const afterClose = snapshotStore(gateway.sqlitePath);
      let ledgerCheck: PhaseStore['ledgerCheck'];
      try {
        ledgerCheck = checkLedger(gateway.sqlitePath);
      } catch (err) {
        log(`${phase}: ledger check failed: ${String(err)}`);
      }
      store[phase] = {
        kind: 'sqlite',
        file: relative(ROOT, gateway.sqlitePath),
        atLoadEnd,
        afterClose,
        ledgerCheck,
        apiLoopDelay: loopDelayOf(join(gateway.scratch, 'loop-delay'), 'api', loadFrom, loadTo),
        redisWork,
      };
      log(
        `${phase}: SQLite ${formatSize(afterClose?.size)} after close, ${afterClose?.ledgerRows ?? 'n/a'} ledger rows; ledger check: ${describeVerdict(ledgerCheck)}`,
      );
      await gateway.stop();
      if (!settings.keepStore)
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${gateway.sqlitePath}${suffix}`, { force: true });
      rmSync(join(gateway.scratch, 's3'), { recursive: true, force: true });
    }
  };
  /**
   * `settings.apiWarmup` seconds of load on a phase's fresh api alone before it is measured (see
   * the knob): the 0 ms load, or `streams` ten at a time (the stream probes' own shape).
   */
  const warmApi = async (gateway: Gateway, phase: string, load: 'unstreamed' | 'streams' = 'unstreamed') => {
    if (settings.apiWarmup <= 0) return;
    const streams = load === 'streams';
    const rps = await wrkLoad({
      label: `${phase}-api-warmup`,
      url: `${gateway.url}/v1/chat/completions`,
      key: gateway.loadKeys[0],
      keysFile: gateway.keysFile,
      connections: streams ? STREAM_CONCURRENCY : settings.connections,
      seconds: settings.apiWarmup,
      body: streams ? chatBody(`openai/${FAST_STREAM}`, true) : chatBody('openai/mock-delay-0', false),
    });
    log(
      `${phase}: the fresh api warmed by ${settings.apiWarmup} s of ${streams ? 'streams ten at a time' : 'the 0 ms load'} (${rps.toFixed(0)} req/s)`,
    );
  };
  /**
   * One on-CPU case: the api, then the floor, each warmed and then recorded under the case's load;
   * their summaries.
   */
  const recordOnCpuCase = async (
    phase: string,
    one: OnCpuCase,
    gateway: Gateway,
    caseFloor: StartedFloor,
    jitDir: string,
  ): Promise<OnCpuSummary[]> => {
    const targets = [
      {
        role: { name: 'api', pid: gateway.api.pid },
        url: gateway.url,
        key: gateway.loadKeys[0],
        prefix: 'openai/',
      },
      { role: { name: 'floor', pid: caseFloor.owned.pid }, url: caseFloor.url, key: undefined, prefix: '' },
    ];
    const load = (target: (typeof targets)[number], label: string, seconds: number) =>
      wrkLoad({
        label,
        url: `${target.url}/v1/chat/completions`,
        key: target.key,
        keysFile: gateway.keysFile,
        connections: one.connections,
        seconds,
        body: chatBody(`${target.prefix}${one.stream ? FAST_STREAM : `mock-delay-${one.delay}`}`, one.stream),
      });
    await warmApi(gateway, phase);
    for (const target of targets)
      await load(target, `${phase}-${target.role.name}-warmup`, settings.onCpuWarmup);
    const summaries: OnCpuSummary[] = [];
    for (const target of targets) {
      const label = `${phase}-${target.role.name}`;
      const file = join(OUT, `${label}.perf.data`);
      // Recorded inside the load: from a second after it starts to a second before it ends.
      const seconds = settings.onCpuSeconds;
      const recording = delayed(1000, () => recordCpus(settings.serverCpus, seconds, file));
      const rps = await load(target, label, seconds + 2);
      await recording;
      const summary = summarizeSamples(readSamples(file, jitDir), {
        target: target.role,
        others: [{ name: 'mock', pid: peers.mock.pid }],
        case: one.name,
        rps,
        seconds,
      });
      summaries.push(summary);
      log(
        `${label} (${one.name}): ${summary.samples} samples, ${rps.toFixed(0)} req/s, main thread ${(summary.byThread[`${target.role.name} main thread`] ?? 0).toFixed(1)} µs/req`,
      );
    }
    return summaries;
  };
  const loadEnv = (gateway: Gateway, delay: number, warmupFirst: number) => ({
    DIRECT_URL: peers.mockUrl,
    WRK_KEYS_FILE: gateway.keysFile,
    LOADGEN: 'wrk',
    LOADGEN_CPUS: settings.loadgenCpus,
    SERVER_CPUS: settings.serverCpus,
    MONITOR_PIDS: [
      `mock:${peers.mock.pid}`,
      `api:${gateway.api.pid}`,
      `redis:${gateway.redis.pid}`,
      `portkey:${peers.portkey.pid}`,
      `floor:${peers.floor.pid}`,
    ].join(','),
    CONNECTIONS: String(settings.connections),
    DELAYS: String(delay),
    DURATION: String(settings.duration),
    ROUNDS: String(settings.rounds),
    WARMUP: String(settings.warmup),
    WARMUP_FIRST: String(warmupFirst),
  });

  // 1. Non-streaming load per upstream delay, alternating direct / gateway / Portkey segments; each
  // delay on fresh stores, so neither scenario inherits the other's ledger.
  for (const [i, delay] of settings.delays.entries()) {
    await inPhase(`load-${delay}`, async (gateway) => {
      if (delay > 0) await warmApi(gateway, `load-${delay}`);
      await runHarness('bench.mjs', `load-${delay}`, {
        ...loadEnv(gateway, delay, i === 0 ? settings.warmupFirst : settings.warmupNext),
        TARGETS_FILE: targetsFile(`load-${delay}-targets.json`, [
          direct,
          gatewayTarget(gateway, gateway.loadKeys[0] ?? ''),
          portkey,
          floor,
        ]),
        OUT_DIR: join(OUT, `load-${delay}`),
      });
    });
  }

  // 2. Streaming time to first token (20 chunks): the harness's default, 10 at a time (a closed
  // loop, so it includes queueing at the api), then one at a time (the latency the gateway adds to
  // the first token, without queueing), then 100 at a time.
  await inPhase('sse', async (gateway) => {
    await warmApi(gateway, 'sse', 'streams');
    // Each probe with a key of its own, none of them the warm-up's: a key's rate limit (3000 a
    // minute) would refuse the third.
    const sse = (probe: number) => ({
      DIRECT_URL: peers.mockUrl,
      TARGETS_FILE: targetsFile(`sse-targets-${probe}.json`, [
        direct,
        gatewayTarget(gateway, gateway.probeKeys[probe] ?? gateway.probeKey),
        floor,
      ]),
      OUT_DIR: OUT,
      STREAM_WARMUP: String(settings.probeWarmup),
      STREAM_REQUESTS: String(settings.streamRequests),
    });
    await runHarness(
      'stream-probe.mjs',
      'sse-probe',
      { ...sse(0), STREAM_LABEL: 'sse' },
      settings.loadgenCpus,
    );
    await runHarness(
      'stream-probe.mjs',
      'sse-sequential-probe',
      { ...sse(1), STREAM_LABEL: 'sse-sequential', STREAM_CONCURRENCY: '1' },
      settings.loadgenCpus,
    );
    // 100 at a time: 1000 streams, so each client runs ten in a row.
    await runHarness(
      'stream-probe.mjs',
      'sse-100-probe',
      { ...sse(2), STREAM_LABEL: 'sse-100', STREAM_CONCURRENCY: '100', STREAM_REQUESTS: '1000' },
      settings.loadgenCpus,
    );
  });
  // 3. Many streams open at once, on a slow upstream stream: the api's memory and the first token.
  let streams: ManyStreamsResult | undefined;
  let floorStreams: ManyStreamsResult | undefined;
  const slowStream = 'mock-delay-0-chunks-20-chunkdelay-250';
  if (settings.manyStreams > 0) {
    await inPhase('streams', async (gateway) => {
      streams = await manyStreams({
        origin: gateway.url,
        key: gateway.probeKey,
        model: `openai/${slowStream}`,
        count: settings.manyStreams,
        pid: gateway.api.pid,
      });
      log(
        `streams: ${streams.ok}/${streams.count} ok, api RSS ${streams.rssBeforeMb.toFixed(0)} → peak ${streams.rssPeakMb.toFixed(0)} MB, TTFT alone ${streams.aloneTtftMs.toFixed(1)} ms (warm ${streams.aloneAfterTtftMs.toFixed(1)}), amid ${streams.amidTtftMs.toFixed(1)} ms (${streams.openAmid} open), burst p50 ${streams.ttftP50Ms.toFixed(1)} / p99 ${streams.ttftP99Ms.toFixed(1)} ms`,
      );
    });
    // The same on a fresh floor proxy (the run's own has served the load phases): the memory of
    // the libraries alone with the streams open.
    const freshFloor = await startFloor({
      mockUrl: peers.mockUrl,
      redisUrl: peers.floorRedisUrl,
      label: 'streams',
    });
    try {
      floorStreams = await manyStreams({
        origin: freshFloor.url,
        key: 'unused',
        model: slowStream,
        count: settings.manyStreams,
        pid: freshFloor.owned.pid,
      });
      log(
        `streams (floor): ${floorStreams.ok}/${floorStreams.count} ok, RSS ${floorStreams.rssBeforeMb.toFixed(0)} → peak ${floorStreams.rssPeakMb.toFixed(0)} MB`,
      );
    } finally {
      await freshFloor.owned.stop(API_STOP_GRACE_MS);
    }
  }
  await inPhase('sequential', async (gateway) => {
    // The load keys warm it; the probe's key is apart, its rate limit untouched.
    await warmApi(gateway, 'sequential');
    await runHarness(
      'stream-probe.mjs',
      'sequential-probe',
      {
        DIRECT_URL: peers.mockUrl,
        TARGETS_FILE: targetsFile('sequential-targets.json', [
          direct,
          gatewayTarget(gateway, gateway.probeKey),
          portkey,
          floor,
        ]),
        OUT_DIR: OUT,
        STREAM_WARMUP: String(settings.probeWarmup),
        STREAM_LABEL: 'sequential',
        STREAM_REQUESTS: String(settings.sequentialRequests),
        PROBE_STREAM: '0',
        STREAM_CONCURRENCY: '1',
      },
      settings.loadgenCpus,
    );
  });

  // 4. CPU profile of the api under the 0 ms load (its own process; the profile is written at exit).
  let profile: RunInfo['profile'];
  if (settings.profileSeconds > 0) {
    const profileDir = join(OUT, 'profile');
    // The load's span on the monotonic clock the profile's samples are stamped with: the summary
    // leaves the api's start-up and shutdown out.
    const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
    let window: ProfileWindow | undefined;
    await inPhase(
      'profile',
      async (gateway) => {
        const fromUs = monotonicUs();
        await runHarness('bench.mjs', 'profile-load', {
          ...loadEnv(gateway, settings.profileDelay, 0),
          TARGETS_FILE: targetsFile('profile-targets.json', [
            gatewayTarget(gateway, gateway.loadKeys[0] ?? ''),
          ]),
          OUT_DIR: join(OUT, 'profile-load'),
          MONITOR_PIDS: `api:${gateway.api.pid},redis:${gateway.redis.pid}`,
          DURATION: String(settings.profileSeconds),
          ROUNDS: '1',
          WARMUP: '0',
        });
        window = { fromUs, toUs: monotonicUs() };
      },
      ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    );
    const file = existsSync(profileDir)
      ? readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))
      : undefined;
    if (file === undefined) log(`no profile written in ${profileDir} (the api did not exit normally)`);
    else
      profile = {
        file: join(profileDir, file),
        summary: summarizeProfile(join(profileDir, file), TREE.root, window),
      };
  }

  // 5. On-CPU time per request (Linux perf): the gateway, then the floor proxy, each alone under a
  // load of its own while every thread on the server CPU is sampled: unstreamed at each of
  // BENCH_ONCPU_DELAYS (50 clients), then streams ten at a time; each case on fresh stores.
  let onCpu: RunInfo['onCpu'];
  if (settings.onCpuSeconds > 0) {
    const unusable = perfUnusable(settings.serverCpus);
    if (unusable !== undefined) {
      log(`on-CPU phase skipped: ${unusable}`);
      onCpu = { skipped: unusable };
    } else {
      const cases: OnCpuCase[] = [
        ...settings.onCpuDelays.map((delay) => ({
          name: `unstreamed, ${settings.connections} clients, ${delay} ms upstream delay`,
          delay,
          connections: settings.connections,
          stream: false,
        })),
        {
          name: `streamed (20 chunks), ${STREAM_CONCURRENCY} clients, 0 ms upstream delay`,
          delay: 0,
          connections: STREAM_CONCURRENCY,
          stream: true,
        },
      ];
      const recordings: OnCpuSummary[] = [];
      for (const [i, one] of cases.entries()) {
        // Both targets write a jitdump here, so their JavaScript is named (removed after the case).
        const jitDir = join(OUT, `oncpu-${i}-jit`);
        // A floor of the case's own: the run's was not started with the jitdump.
        const caseFloor = await startFloor({
          mockUrl: peers.mockUrl,
          redisUrl: peers.floorRedisUrl,
          label: `oncpu-${i}`,
          preload: jitDumpFlags(jitDir),
        });
        try {
          await inPhase(
            `oncpu-${i}`,
            async (gateway) => {
              recordings.push(...(await recordOnCpuCase(`oncpu-${i}`, one, gateway, caseFloor, jitDir)));
            },
            jitDumpFlags(jitDir),
          );
        } finally {
          await caseFloor.owned.stop(API_STOP_GRACE_MS);
          rmSync(jitDir, { recursive: true, force: true });
        }
      }
      onCpu = { recordings };
    }
  }

  // 6. Where a request's time goes (stage timing, at BENCH_STAGE_DELAY): an api and a floor proxy
  // of this phase's own, both with the stage-timing preload, one segment each. Apart from the
  // phases above, since the preload's async context costs every request a little.
  let stages: RunInfo['stages'];
  if (settings.stageSeconds > 0) {
    await inPhase(
      'stages',
      async (gateway) => {
        const dir = join(gateway.scratch, 'stages');
        const stagedFloor = await startFloor({
          mockUrl: peers.mockUrl,
          redisUrl: gateway.redisUrl,
          label: 'stages',
          preload: ['--import', STAGE_TIMING_PRELOAD],
          env: { ...process.env, BENCH_STAGES_DIR: dir },
        });
        try {
          await runHarness('bench.mjs', 'stages-load', {
            ...loadEnv(gateway, settings.stageDelay, settings.warmupNext),
            TARGETS_FILE: targetsFile('stages-targets.json', [
              gatewayTarget(gateway, gateway.loadKeys[0] ?? ''),
              { name: 'floor', url: stagedFloor.url, headers: {} },
            ]),
            OUT_DIR: join(OUT, 'stages-load'),
            MONITOR_PIDS: `api:${gateway.api.pid},floor:${stagedFloor.owned.pid}`,
            DURATION: String(settings.stageSeconds),
            ROUNDS: '1',
          });
        } finally {
          await stagedFloor.owned.stop();
        }
        stages = {
          delayMs: settings.stageDelay,
          seconds: settings.stageSeconds,
          api: stageTimingOf(dir, 'api', settings.stageSeconds),
          floor: stageTimingOf(dir, 'floor', settings.stageSeconds),
        };
      },
      ['--import', STAGE_TIMING_PRELOAD],
    );
  }

  const info: RunInfo = {
    command: commandLine(),
    settings,
    probeApiWarmupS: settings.apiWarmup,
    startedAt: new Date(begun).toISOString(),
    elapsedS: (Date.now() - begun) / 1000,
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    node: process.version,
    outDir: OUT,
    root: ROOT,
    store,
    loadAverage,
    profile,
    onCpu,
    stages,
    streams,
    floorStreams,
    portkeyVersion: packageVersion(join(HARNESS, 'node_modules', '@portkey-ai', 'gateway')),
    tree: TREE.label,
  };
  const resultsFile = writeResults(info);
  log(`wrote ${resultsFile} (${((Date.now() - begun) / 1000).toFixed(0)} s in all)`);
}

/** The chat request wrk posts: the harness's (16 tokens at most), or its stream probe's. */
function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say hello.' }],
    ...(stream ? { stream: true } : { max_tokens: 16 }),
  });
}

/**
 * A closed loop of `connections` wrk clients posting `body` for `seconds` (keys rotated from
 * `keysFile` when `key` is one of them, as in the load tables); its requests per second, after
 * checking every answer was a 2xx.
 */
async function wrkLoad(options: {
  readonly label: string;
  readonly url: string;
  readonly key: string | undefined;
  readonly keysFile: string;
  readonly connections: number;
  readonly seconds: number;
  readonly body: string;
}): Promise<number> {
  const jsonOut = join(OUT, `${options.label}.wrk.json`);
  await runToEnd({
    name: options.label,
    command: 'wrk',
    args: [
      ...['-t', '1', '-c', String(options.connections), '-d', `${options.seconds}s`, '--timeout', '10s'],
      ...['-s', join(HARNESS, 'wrk-post.lua')],
      ...(options.key === undefined ? [] : ['-H', `Authorization: Bearer ${options.key}`]),
      options.url,
    ],
    env: { ...env, WRK_BODY: options.body, WRK_KEYS_FILE: options.keysFile, WRK_JSON_OUT: jsonOut },
    logFile: join(OUT, `${options.label}.txt`),
    cpus: settings.loadgenCpus,
  });
  const result = JSON.parse(readFileSync(jsonOut, 'utf8')) as {
    requests: number;
    duration_us: number;
    errors: Record<string, number>;
  };
  const failed = Object.values(result.errors).reduce((a, b) => a + b, 0);
  if (failed > 0)
    throw new Error(`${options.label}: ${failed} failed requests (${JSON.stringify(result.errors)})`);
  return result.requests / (result.duration_us / 1e6);
}

/** `run` once `ms` have passed. */
function delayed<T>(ms: number, run: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    setTimeout(() => run().then(resolve, reject), ms);
  });
}

/** `npm run bench` with the knobs that were set, as they would be typed again. */
function commandLine(): string {
  const knob = /^(BENCH_[A-Z_]+|SERVER_CPUS|LOADGEN_CPUS|STORES_CPUS|SETTLEMENT_FLUSH_MS)$/;
  const set = Object.entries(env).filter(([name, value]) => knob.test(name) && value !== undefined);
  return [...set.map(([name, value]) => `${name}=${value}`), 'npm run bench'].join(' ');
}

function packageVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

// Whatever happens, nothing this runner started outlives it.
process.on('exit', killAllNow);
let stopping = false;
const stopAndExit = async (reason: string, code: number) => {
  if (stopping) {
    log(`${reason} again: killing everything now`);
    killAllNow();
    process.exit(1);
  }
  stopping = true;
  log(`${reason}: stopping everything it started`);
  await stopAll(log);
  process.exit(code);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(signal, () => void stopAndExit(signal, 130));
const limit = setTimeout(
  () => void stopAndExit(`time limit of ${settings.timeLimitS} s reached`, 1),
  settings.timeLimitS * 1000,
);
limit.unref();

if (!existsSync('/usr/bin/wrk') && !env.PATH?.split(':').some((dir) => existsSync(join(dir, 'wrk')))) {
  process.stderr.write('npm run bench needs wrk (Debian: apt-get install -y wrk)\n');
  process.exit(2);
}
main().then(
  () => void stopAndExit('finished', 0),
  (err: unknown) => {
    process.stderr.write(
      `[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
    void stopAndExit('failure', 1);
  },
);
