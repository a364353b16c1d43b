import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';
import { type SpawnedEntry, spawnEntry } from '../../helpers/spawn-entry.ts';
import { testEnvironment } from '../../helpers/test-config.ts';

const API = 'api/src/main.ts';
const WORKER = 'workers/src/main.ts';
const running: SpawnedEntry[] = [];

function start(entry: string, env: Record<string, string | undefined>): SpawnedEntry {
  const spawned = spawnEntry(entry, env);
  running.push(spawned);
  return spawned;
}

afterEach(() => {
  for (const spawned of running.splice(0)) spawned.child.kill('SIGKILL');
});

async function portIsClosed(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/healthz`);
    return false;
  } catch {
    return true;
  }
}

describe('api entry', () => {
  it('serves, then closes gracefully on SIGTERM with exit code 0', async () => {
    const port = await freePort();
    const api = start(API, testEnvironment({ PORT: String(port), LOG_LEVEL: 'info' }));
    await api.waitFor(/"msg":"api listening"/);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
    api.child.kill('SIGTERM');
    expect(await api.exited()).toEqual({ code: 0, signal: null });
    expect(api.output()).toContain('"msg":"closed"');
  });

  it('exits 1 listing every bad variable, before opening a port', async () => {
    const port = await freePort();
    const api = start(API, { PORT: String(port), REDIS_URL: 'nope', LOG_LEVEL: 'loud', MONGO_URL: 'x' });
    expect((await api.exited()).code).toBe(1);
    const output = api.output();
    expect(output).toContain('api failed to start: Invalid configuration:');
    expect(output).toContain('REDIS_URL must be a URL starting with redis:// or rediss://');
    expect(output).toContain('MONGO_URL must be a URL starting with mongodb:// or mongodb+srv://');
    expect(output).toMatch(/LOG_LEVEL /);
    expect(await portIsClosed(port)).toBe(true);
  });

  it('refuses to start with a malformed catalogue, naming the entry and the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'catalogue-'));
    const path = join(dir, 'models.json');
    const good = JSON.parse(
      await (await import('node:fs/promises')).readFile('shared/src/catalogue/models.json', 'utf8'),
    ) as { models: Array<Record<string, unknown>> };
    const broken = good.models.find((m) => m.type === 'chat') as Record<string, unknown>;
    broken.type = 'hologram';
    await writeFile(path, JSON.stringify(good));
    const port = await freePort();
    const api = start(API, testEnvironment({ PORT: String(port), CATALOGUE_PATH: path }));
    expect((await api.exited()).code).toBe(1);
    expect(api.output()).toContain(String(broken.id));
    expect(api.output()).toMatch(/type/);
    expect(await portIsClosed(port)).toBe(true);
  });

  it('refuses to start when a store cannot be reached', async () => {
    const port = await freePort();
    const env = testEnvironment({ PORT: String(port), MONGO_URL: 'mongodb://127.0.0.1:1' });
    const api = start(API, { ...env, MONGO_SERVER_SELECTION_TIMEOUT_MS: '300' });
    expect((await api.exited()).code).toBe(1);
    expect(api.output()).toContain('api failed to start');
    expect(await portIsClosed(port)).toBe(true);
  });
});

describe('worker entry', () => {
  it('starts the configured roles and closes gracefully on SIGTERM', async () => {
    const worker = start(WORKER, testEnvironment({ LOG_LEVEL: 'info', WORKER_QUEUES: 'image,video' }));
    await worker.waitFor(/"msg":"worker ready"/);
    expect(worker.output()).toMatch(/"queue":"image".*"msg":"worker started"/);
    expect(worker.output()).toMatch(/"queue":"video".*"msg":"worker started"/);
    expect(worker.output()).not.toMatch(/"queue":"speech"/);
    worker.child.kill('SIGINT');
    expect(await worker.exited()).toEqual({ code: 0, signal: null });
  });

  it('exits 1 on an unknown queue role', async () => {
    const worker = start(WORKER, testEnvironment({ WORKER_QUEUES: 'image,chat' }));
    expect((await worker.exited()).code).toBe(1);
    expect(worker.output()).toContain('WORKER_QUEUES must list queues among');
  });
});
