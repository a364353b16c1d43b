/**
 * `npm run bench` (chat phases; `npm run bench:chat` alone): the gateway beside the same mock
 * upstream called directly, beside a peer gateway (Portkey) and beside the floor of its own
 * libraries (./floor-proxy.ts), with the load harness in bench/harness/. Starts everything itself
 * on free 127.0.0.1 ports (./chat-stack.ts), writes bench/RESULTS.md (./report.ts: the lines
 * against the floor of this run, then their tables) and raw results under bench/results/<stamp>/,
 * and stops what it started (only that) at the end, on failure, on Ctrl-C and on its time limit.
 *
 * Phases, each on a fresh api and fresh stores: the unstreamed load at each upstream delay (all
 * four targets, alternating), streams ten at a time (first token), 1,000 streams open at once
 * (memory, on the api and on a fresh floor), a CPU profile of the api under the 0 ms load. After
 * each phase its SQLite file is read from outside (./store-file.ts) and its wallets checked
 * against their ledgers. Knobs (env): "How to run" in bench/RESULTS.md.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_STOP_GRACE_MS } from './bench-api.ts';
import {
  type ChatRun,
  type Gateway,
  type GatewayUpstream,
  type Peers,
  startFloor,
  startGateway,
  startPeers,
} from './chat-stack.ts';
import { type ManyStreamsResult, manyStreams } from './many-streams.ts';
import { runOwning, runToEnd } from './processes.ts';
import { summarizeProfile } from './profile-summary.ts';
import { readRedisWork } from './redis-work.ts';
import { type PhaseStore, type RunInfo, writeResults } from './report.ts';
import { commandLabel, machineLabel, workTreeLabel } from './run-labels.ts';
import { describeVerdict, storeAcrossClose } from './store-file.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const num = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));
const settings = {
  duration: num('BENCH_DURATION', 10),
  rounds: num('BENCH_ROUNDS', 3),
  warmupFirst: num('BENCH_WARMUP_FIRST', 20),
  warmup: num('BENCH_WARMUP', 3),
  warmupNext: num('BENCH_WARMUP_NEXT', 5),
  // A fresh api compiles its hot path for thousands of requests, while the floor and Portkey,
  // started once, have served the phases before: each phase's api serves this many seconds first.
  apiWarmup: num('BENCH_API_WARMUP', 10),
  connections: num('BENCH_CONNECTIONS', 50),
  delays: (env.BENCH_DELAYS ?? '0,50').split(',').map(Number),
  /** API channels of the second gateway measured at 0 ms (0 skips it). */
  channels: num('BENCH_CHANNELS', 4),
  /** A gateway with the request log off measured at 0 ms beside the one with it on (0 skips it). */
  logOff: num('BENCH_LOG_OFF', 1) > 0,
  accounts: num('BENCH_ACCOUNTS', 8),
  streamRequests: num('BENCH_STREAM_REQUESTS', 1200),
  probeWarmup: num('BENCH_PROBE_WARMUP', 1500),
  manyStreams: num('BENCH_MANY_STREAMS', 1000),
  profileSeconds: num('BENCH_PROFILE_SECONDS', 20),
  keepStore: env.BENCH_KEEP_STORE === '1',
  serverCpus: env.SERVER_CPUS ?? '1',
  loadgenCpus: env.LOADGEN_CPUS ?? '0',
  // Redis away from the server CPU (SQLite runs inside the api, on it).
  storesCpus: env.STORES_CPUS ?? env.LOADGEN_CPUS ?? '0',
  timeLimitS: num('BENCH_TIME_LIMIT_S', 900),
};
/** The run's knobs, read once ("How to run" in bench/RESULTS.md). */
export type BenchSettings = typeof settings;
/** The mock's model for a slow stream: 20 chunks 250 ms apart, about 5 s open. */
const SLOW_STREAM = 'mock-delay-0-chunks-20-chunkdelay-250';
const OUT = join(ROOT, 'bench', 'results', new Date().toISOString().replace(/[:.]/g, '-'));
const HARNESS = join(ROOT, '.local', 'bench-harness');
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const run: ChatRun = {
  root: ROOT,
  harness: HARNESS,
  logs: join(OUT, 'logs'),
  stores: join(OUT, 'stores'),
  serverCpus: settings.serverCpus,
  storesCpus: settings.storesCpus,
  accounts: settings.accounts,
  log,
};
const store: Record<string, PhaseStore> = {};
const loadAverage: Record<string, [number, number]> = {};

/** Copies the harness into the git-ignored scratch folder and installs its dependencies once. */
async function prepareHarness(): Promise<void> {
  const source = join(ROOT, 'bench', 'harness');
  mkdirSync(HARNESS, { recursive: true });
  for (const name of readdirSync(source))
    if (name !== 'node_modules')
      cpSync(join(source, name), join(HARNESS, name), { recursive: true, force: true });
  // The one change to the copy: its wrk script rotates API keys (see the file).
  cpSync(join(ROOT, 'bench', 'wrk-keys.lua'), join(HARNESS, 'wrk-post.lua'), { force: true });
  if (existsSync(join(HARNESS, 'node_modules', '@portkey-ai', 'gateway'))) return;
  log('installing the harness dependencies (autocannon, @portkey-ai/gateway) in .local/bench-harness');
  const logFile = join(run.logs, 'npm-install.log');
  await runToEnd({
    name: 'npm ci',
    command: 'npm',
    args: ['ci', '--no-audit', '--no-fund'],
    cwd: HARNESS,
    logFile,
  });
}

/** A harness script (bench.mjs, stream-probe.mjs) to its end, its output in `<label>.txt`. */
async function runHarness(script: string, label: string, extraEnv: Record<string, string>): Promise<void> {
  const logFile = join(OUT, `${label}.txt`);
  const spec = { name: label, command: process.execPath, args: [script], cwd: HARNESS, logFile };
  await runToEnd({ ...spec, env: { ...env, ...extraEnv }, cpus: settings.loadgenCpus });
}

/** A phase on a fresh gateway; its store read and checked, and everything of it stopped, after. */
async function inPhase(
  peers: Peers,
  phase: string,
  body: (gateway: Gateway) => Promise<void>,
  flags: string[] = [],
) {
  const gateway = await startGateway(run, peers, phase, flags);
  const before = os.loadavg()[0] ?? 0;
  try {
    await body(gateway);
  } finally {
    loadAverage[phase] = [before, os.loadavg()[0] ?? 0];
    store[phase] = await closePhase(gateway);
    log(
      `${phase}: ${store[phase]?.afterClose?.ledgerRows ?? 'n/a'} ledger rows; ledger check: ${describeVerdict(store[phase]?.ledgerCheck)}`,
    );
    await gateway.stop();
    if (!settings.keepStore)
      for (const file of [gateway.sqlitePath, join(gateway.scratch, 'requests.db')])
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    rmSync(join(gateway.scratch, 's3'), { recursive: true, force: true });
  }
}

/** The store when the load ended, the api closed gracefully, then the ledger check on the closed file. */
async function closePhase(gateway: Gateway): Promise<PhaseStore> {
  const redisWork = await readRedisWork(gateway.redisUrl);
  const store = await storeAcrossClose(gateway.sqlitePath, () => gateway.stopApi(), log);
  return { file: relative(ROOT, gateway.sqlitePath), ...store, redisWork };
}

const targetsFile = (name: string, targets: unknown[]) => {
  const file = join(OUT, name);
  writeFileSync(file, JSON.stringify(targets, null, 2));
  return file;
};

/** The harness's targets: the mock directly, Portkey, the floor, a phase's gateway with a key. */
function targets(peers: Peers) {
  const portkeyHeaders = {
    authorization: 'Bearer sk-mock',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': '{{UPSTREAM}}/v1',
  };
  return {
    direct: { name: 'direct', url: peers.mockUrl, headers: { authorization: 'Bearer sk-mock' } },
    portkey: { name: 'portkey', url: peers.portkeyUrl, headers: portkeyHeaders },
    floor: { name: 'floor', url: peers.floor.url, headers: {} },
    gateway: (gateway: Gateway, key: string) => ({
      name: 'gateway',
      url: gateway.url,
      headers: { authorization: `Bearer ${key}` },
      modelPrefix: 'openai/',
    }),
  };
}

/** The harness's environment for `bench.mjs` at one upstream delay on a phase's gateway. */
function loadEnv(peers: Peers, gateway: Gateway, delay: number, warmupFirst: number): Record<string, string> {
  const pids = [`mock:${peers.mock.pid}`, `api:${gateway.api.pid}`, `redis:${gateway.redis.pid}`];
  pids.push(`portkey:${peers.portkey.pid}`, `floor:${peers.floor.owned.pid}`);
  return {
    DIRECT_URL: peers.mockUrl,
    WRK_KEYS_FILE: gateway.keysFile,
    LOADGEN: 'wrk',
    LOADGEN_CPUS: settings.loadgenCpus,
    SERVER_CPUS: settings.serverCpus,
    MONITOR_PIDS: pids.join(','),
    CONNECTIONS: String(settings.connections),
    DELAYS: String(delay),
    DURATION: String(settings.duration),
    ROUNDS: String(settings.rounds),
    WARMUP: String(settings.warmup),
    WARMUP_FIRST: String(warmupFirst),
  };
}

/** `settings.apiWarmup` seconds of the 0 ms load (or of streams ten at a time) on a phase's api alone. */
async function warmApi(peers: Peers, gateway: Gateway, phase: string, streams = false): Promise<void> {
  if (settings.apiWarmup <= 0) return;
  const key = gateway.loadKeys[0] ?? '';
  await runHarness(streams ? 'stream-probe.mjs' : 'bench.mjs', `${phase}-api-warmup`, {
    ...loadEnv(peers, gateway, 0, 0),
    TARGETS_FILE: targetsFile(`${phase}-warmup-targets.json`, [targets(peers).gateway(gateway, key)]),
    OUT_DIR: join(OUT, `${phase}-api-warmup`),
    DURATION: String(settings.apiWarmup),
    ROUNDS: '1',
    WARMUP: '0',
    ...(streams ? { STREAM_WARMUP: '0', STREAM_REQUESTS: String(settings.apiWarmup * 200) } : {}),
  });
}

/** A second gateway measured beside the first in the 0 ms alternation, with one thing changed. */
interface Variant {
  readonly name: string;
  readonly upstream: GatewayUpstream;
}

/** The 0 ms variants: with the request log off; through `BENCH_CHANNELS` API channels (4). */
function zeroDelayVariants(): Variant[] {
  const variants: Variant[] = [];
  if (settings.logOff)
    variants.push({ name: 'log-off', upstream: { env: { REQUEST_LOG_ENABLED: 'false' } } });
  if (settings.channels > 0) variants.push({ name: 'channels', upstream: { channels: settings.channels } });
  return variants;
}

/**
 * 1. The unstreamed load at each upstream delay: direct, gateway, Portkey and floor, alternating.
 * At 0 ms, gateways that differ from the first in one thing each (its variants: the request log
 * off; reaching the mock through 4 API channels) are measured in the same alternation, as
 * `gateway-<variant>`, the log-off one beside the gateway (the harness reverses its order every
 * other round, so each is measured as often before the gateway as after it), so each line
 * compares them in the same run.
 */
async function loadPhases(peers: Peers): Promise<void> {
  const t = targets(peers);
  for (const [i, delay] of settings.delays.entries()) {
    await inPhase(peers, `load-${delay}`, async (gateway) => {
      const variants: Array<Variant & { gateway: Gateway }> = [];
      try {
        for (const variant of delay === 0 ? zeroDelayVariants() : []) {
          const started = await startGateway(
            run,
            peers,
            `load-${delay}-${variant.name}`,
            [],
            variant.upstream,
          );
          variants.push({ ...variant, gateway: started });
        }
        // Every api of the alternation gets the same warm-up: at 0 ms the first one, without its
        // own, stayed about a fifth slower than its variants through all five rounds.
        await warmApi(peers, gateway, `load-${delay}`);
        for (const v of variants) await warmApi(peers, v.gateway, `load-${delay}-${v.name}`);
        const env = loadEnv(peers, gateway, delay, i === 0 ? settings.warmupFirst : settings.warmupNext);
        const pids = variants.map((v) => `api-${v.name}:${v.gateway.api.pid}`);
        await runHarness('bench.mjs', `load-${delay}`, {
          ...env,
          ...(variants.length === 0
            ? {}
            : {
                WRK_KEYS_FILE: keyGroups(`load-${delay}`, [gateway, ...variants.map((v) => v.gateway)]),
                MONITOR_PIDS: [env.MONITOR_PIDS, ...pids].join(','),
              }),
          TARGETS_FILE: targetsFile(`load-${delay}-targets.json`, [
            t.direct,
            t.gateway(gateway, gateway.loadKeys[0] ?? ''),
            ...variants.map((v) => ({
              ...t.gateway(v.gateway, v.gateway.loadKeys[0] ?? ''),
              name: `gateway-${v.name}`,
            })),
            t.portkey,
            t.floor,
          ]),
          OUT_DIR: join(OUT, `load-${delay}`),
        });
      } finally {
        for (const v of variants) await v.gateway.stop();
      }
    });
  }
}

/** One keys file for wrk with each gateway's keys as a group (bench/wrk-keys.lua). */
function keyGroups(label: string, gateways: readonly Gateway[]): string {
  const file = join(run.harness, `bench-keys-${label}-groups.txt`);
  writeFileSync(file, `${gateways.map((g) => g.loadKeys.join('\n')).join('\n\n')}\n`, { mode: 0o600 });
  return file;
}

/** 2. Streams ten at a time (20 chunks sent at once): time to first token, the gateway's own key. */
async function streamPhase(peers: Peers): Promise<void> {
  const t = targets(peers);
  await inPhase(peers, 'sse', async (gateway) => {
    await warmApi(peers, gateway, 'sse', true);
    await runHarness('stream-probe.mjs', 'sse-probe', {
      DIRECT_URL: peers.mockUrl,
      TARGETS_FILE: targetsFile('sse-targets.json', [
        t.direct,
        t.gateway(gateway, gateway.probeKey),
        t.floor,
      ]),
      OUT_DIR: OUT,
      STREAM_LABEL: 'sse',
      STREAM_WARMUP: String(settings.probeWarmup),
      STREAM_REQUESTS: String(settings.streamRequests),
    });
  });
}

/** 3. 1,000 streams open at once on a slow stream: the api's memory, then a fresh floor's. */
async function manyStreamsPhase(peers: Peers): Promise<[ManyStreamsResult?, ManyStreamsResult?]> {
  if (settings.manyStreams <= 0) return [];
  let api: ManyStreamsResult | undefined;
  await inPhase(peers, 'streams', async (gateway) => {
    const options = { origin: gateway.url, key: gateway.probeKey, model: `openai/${SLOW_STREAM}` };
    const measured = { pid: gateway.api.pid, memoryDir: gateway.memoryDir };
    api = await manyStreams({ ...options, ...measured, count: settings.manyStreams });
    log(
      `streams: ${api.ok}/${api.count} ok, api RSS ${api.rssBeforeMb.toFixed(0)} → ${api.rssPeakMb.toFixed(0)} MB`,
    );
  });
  const dir = join(run.stores, 'streams-floor');
  const floor = await startFloor(run, peers.mockUrl, peers.floorRedisUrl, 'floor-proxy-streams', dir);
  try {
    const options = {
      origin: floor.url,
      key: 'unused',
      model: SLOW_STREAM,
      pid: floor.owned.pid,
      memoryDir: dir,
    };
    const result = await manyStreams({ ...options, count: settings.manyStreams });
    log(
      `streams (floor): ${result.ok}/${result.count} ok, RSS ${result.rssBeforeMb.toFixed(0)} → ${result.rssPeakMb.toFixed(0)} MB`,
    );
    return [api, result];
  } finally {
    await floor.owned.stop(API_STOP_GRACE_MS);
  }
}

/** 4. A CPU profile of a fresh api under the 0 ms load (written when it exits). */
async function profilePhase(peers: Peers): Promise<RunInfo['profile']> {
  if (settings.profileSeconds <= 0) return undefined;
  const dir = join(OUT, 'profile');
  // The load's span on the monotonic clock the samples are stamped with: start-up stays out.
  const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
  let window: { fromUs: number; toUs: number } | undefined;
  const profileLoad = async (gateway: Gateway) => {
    const fromUs = monotonicUs();
    await runHarness('bench.mjs', 'profile-load', {
      ...loadEnv(peers, gateway, 0, 0),
      TARGETS_FILE: targetsFile('profile-targets.json', [
        targets(peers).gateway(gateway, gateway.loadKeys[0] ?? ''),
      ]),
      OUT_DIR: join(OUT, 'profile-load'),
      DURATION: String(settings.profileSeconds),
      ROUNDS: '1',
      WARMUP: '0',
    });
    window = { fromUs, toUs: monotonicUs() };
  };
  await inPhase(peers, 'profile', profileLoad, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  const file = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.cpuprofile')) : undefined;
  if (file === undefined) log(`no profile written in ${dir} (the api did not exit normally)`);
  return file === undefined
    ? undefined
    : { file: join(dir, file), summary: summarizeProfile(join(dir, file), ROOT, window) };
}

async function main(): Promise<void> {
  const begun = Date.now();
  mkdirSync(run.logs, { recursive: true });
  log(`results: ${OUT}`);
  await prepareHarness();
  const peers = await startPeers(run);
  await loadPhases(peers);
  await streamPhase(peers);
  const [streams, floorStreams] = await manyStreamsPhase(peers);
  const profile = await profilePhase(peers);
  const info: RunInfo = {
    command: commandLabel('npm run bench', /^(BENCH_[A-Z_]+|SERVER_CPUS|LOADGEN_CPUS|STORES_CPUS)$/),
    settings,
    startedAt: new Date(begun).toISOString(),
    elapsedS: (Date.now() - begun) / 1000,
    machine: machineLabel(),
    outDir: OUT,
    root: ROOT,
    store,
    loadAverage,
    profile,
    streams,
    floorStreams,
    portkeyVersion: packageVersion(join(HARNESS, 'node_modules', '@portkey-ai', 'gateway')),
    tree: workTreeLabel(ROOT),
  };
  log(`wrote ${writeResults(info)} (${((Date.now() - begun) / 1000).toFixed(0)} s in all)`);
}

function packageVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

if (!(env.PATH ?? '').split(':').some((dir) => existsSync(join(dir, 'wrk')))) {
  process.stderr.write('npm run bench needs wrk (Debian: apt-get install -y wrk)\n');
  process.exit(2);
}
runOwning(main, { name: 'bench', timeLimitS: settings.timeLimitS, log });
