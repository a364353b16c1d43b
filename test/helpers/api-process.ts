/**
 * The api as a process of its own (`api/src/main.ts` on this Node), for tests that kill it or run
 * several: started on an environment and a port, ready once `/readyz` answers 200.
 */
import { TEST_ADMIN_TOKEN } from './admin-client.ts';
import { type SpawnedEntry, spawnEntry } from './spawn-entry.ts';

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
