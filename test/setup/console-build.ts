import { fileURLToPath } from 'node:url';
import { ensureConsoleBuilt } from '../../infra/local-stack/build-console.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The browser tests' setup: builds the web console (type-checked) when `api/console/dist` is
 * missing or older than its sources, so `npm ci && npm test` works on a fresh clone. Concurrent
 * callers build once (a lock in build-console.ts).
 */
export async function ensureConsoleForTests(): Promise<void> {
  await ensureConsoleBuilt({
    repoRoot: REPO_ROOT,
    typecheck: true,
    log: (line) => process.stdout.write(`[console-build] ${line}\n`),
  });
}
