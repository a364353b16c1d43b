import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface SpawnedEntry {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the first output line matching `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs a project entry (`api/src/main.ts`, …) on this Node with exactly the given environment
 * (and command-line arguments, if any).
 */
export function spawnEntry(
  entry: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): SpawnedEntry {
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (data: Buffer) => {
    text += data.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;

  return {
    child,
    output: () => text,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = text.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            cleanup();
            resolve(line);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${text}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exit.then(() => {
          check();
          if (listeners.has(check)) {
            cleanup();
            reject(new Error(`process exited before printing ${pattern}:\n${text}`));
          }
        });
        check();
      });
    },
    async exited(timeoutMs = 20_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const [code, signal] = await exit;
      clearTimeout(timer);
      return { code, signal };
    },
  };
}
