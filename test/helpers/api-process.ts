/**
 * The api as a process of its own (`api/src/main.ts` on this Node), for tests that kill it or run
 * several: started on an environment and a port, ready once `/readyz` answers 200.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { loadConfig } from '../../shared/src/config/config.ts';
import { type Connections, closeConnections, openConnections } from '../../shared/src/runtime/connections.ts';
import { type OpenAIMediaUpstream, startOpenAIMediaUpstream } from '../fakes/openai-media-upstream.ts';
import { DEFAULT_FAKE_KEY } from '../fakes/openai-upstream.ts';
import { TEST_ADMIN_TOKEN } from './admin-client.ts';
import { captureLogger } from './capture-logger.ts';
import { lateBound, made } from './late-bound.ts';
import { type SpawnedEntry, spawnEntry } from './spawn-entry.ts';
import { testEnvironment } from './test-config.ts';

export interface ApiProcess {
  readonly api: SpawnedEntry;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
}

/**
 * Spawns the api on `env` listening on `port`, and resolves once it is ready. The process is added
 * to `running` at once, so the test's clean-up kills it even when it never became ready.
 */
export async function startApiProcess(
  env: Record<string, string | undefined>,
  port: number,
  running: SpawnedEntry[],
): Promise<ApiProcess> {
  const origin = `http://127.0.0.1:${port}`;
  const api = spawnEntry('api/src/main.ts', { ...env, PORT: String(port) });
  running.push(api);
  for (let i = 0; i < 200; i++) {
    const ready = await fetch(`${origin}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return { api, origin };
    if (api.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the api did not become ready:\n${api.output()}`);
}

/** POSTs to the operator API of an api process started with `ADMIN_TOKEN=TEST_ADMIN_TOKEN`; throws on a non-2xx. */
export async function adminPost<T>(origin: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${origin}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The processes a test file spawns: each test's are killed (SIGKILL) after it, whatever happened. */
export function useSpawnedProcesses(): SpawnedEntry[] {
  const running: SpawnedEntry[] = [];
  afterEach(() => {
    for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
  });
  return running;
}

/** A connection of the test's own to the stores of processes started on `env` (to read behind their back). */
export function openStoreConnections(env: Record<string, string | undefined>): Promise<Connections> {
  return openConnections(loadConfig(env), 'test', captureLogger('silent').logger);
}

/** A new account with `topUp` Toman (default 1,000,000) and a key allowing 3000 requests a minute. */
export async function fundedProcessKey(
  origin: string,
  email: string,
  topUp = 1_000_000,
): Promise<{ accountId: string; key: string }> {
  const account = await adminPost<{ id: string }>(origin, '/accounts', { email });
  await adminPost(origin, `/accounts/${account.id}/topups`, { amount: topUp });
  const { key } = await adminPost<{ key: string }>(origin, `/accounts/${account.id}/keys`, {
    rate_limit: 3000,
  });
  return { accountId: account.id, key };
}

/**
 * The environment of api and worker processes on fresh test stores with the operator API on,
 * OpenAI pointed at a fake (`openaiUrl`, e.g. the media fake's), and `overrides`.
 */
export function processEnvironment(
  openaiUrl: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return testEnvironment({
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    OPENAI_BASE_URL: openaiUrl,
    OPENAI_API_KEY: DEFAULT_FAKE_KEY,
    ...overrides,
  });
}

/** Processes on the test stores in front of the OpenAI media fake (`useMediaProcesses`). */
export interface MediaProcesses {
  readonly fake: OpenAIMediaUpstream;
  /** Their environment (`processEnvironment` over the fake). */
  readonly env: Record<string, string | undefined>;
  /** The test's own connection to their stores. */
  readonly connections: Connections;
  /** What the test spawns (killed after each test). */
  readonly running: SpawnedEntry[];
}

/** A test file's media fake, environment and store connection, made before its tests, closed after them. */
export function useMediaProcesses(overrides: Record<string, string | undefined> = {}): MediaProcesses {
  const running = useSpawnedProcesses();
  let stack: MediaProcesses | undefined;
  beforeAll(async () => {
    const fake = await startOpenAIMediaUpstream();
    const env = processEnvironment(fake.url, overrides);
    stack = { fake, env, connections: await openStoreConnections(env), running };
  });
  afterAll(async () => {
    if (stack === undefined) return;
    await closeConnections(stack.connections);
    await stack.fake.close();
  });
  return lateBound(() => made(stack, 'the media processes'));
}
