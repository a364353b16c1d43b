/**
 * Builds the web console (`api/console`, Vite) into `api/console/dist` when that build is missing or
 * older than any of its sources. Used by `npm start` before the api starts, and by the browser
 * tests' setup. The build goes to a temporary folder first and replaces `dist` whole, so an api
 * serving the old build never sees half a new one; a lock folder makes concurrent callers (two test
 * files, a test run beside `npm start`) build once and the others wait for it.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';

export interface BuildConsoleOptions {
  readonly repoRoot: string;
  /** Progress lines (what is built and why). */
  readonly log?: (line: string) => void;
  /** Also type-check the console's sources first (tests do; `npm start` does not, to start fast). */
  readonly typecheck?: boolean;
  /** Build even when `dist` is up to date. */
  readonly force?: boolean;
  /** How long to wait for another process's build (default 3 minutes). */
  readonly lockWaitMs?: number;
}

export type BuildConsoleResult = 'up-to-date' | 'built';

/** Folders under `api/console` that are not sources. */
const NOT_SOURCES = new Set(['dist', 'node_modules', '.build-lock']);
const STALE_LOCK_MS = 60_000;

export function consolePaths(repoRoot: string) {
  const consoleDir = join(repoRoot, 'api', 'console');
  return {
    consoleDir,
    distDir: join(consoleDir, 'dist'),
    indexFile: join(consoleDir, 'dist', 'index.html'),
    lockDir: join(consoleDir, '.build-lock'),
    viteConfig: join(consoleDir, 'vite.config.ts'),
    tsconfig: join(consoleDir, 'tsconfig.json'),
    viteBin: join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'),
    tscBin: join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
    lockfile: join(repoRoot, 'package-lock.json'),
  };
}

/** The newest modification time of the console's sources (and of the dependency lock). */
export function newestSourceTime(repoRoot: string): number {
  const paths = consolePaths(repoRoot);
  let newest = existsSync(paths.lockfile) ? statSync(paths.lockfile).mtimeMs : 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (NOT_SOURCES.has(entry.name) || entry.name.startsWith('.dist-')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(paths.consoleDir);
  return newest;
}

/** True when `dist` exists and is at least as new as every source. */
export function isConsoleBuildFresh(repoRoot: string): boolean {
  const { indexFile } = consolePaths(repoRoot);
  return existsSync(indexFile) && statSync(indexFile).mtimeMs >= newestSourceTime(repoRoot);
}

/** Builds the console unless its build is up to date. Throws when the build fails. */
export async function ensureConsoleBuilt(options: BuildConsoleOptions): Promise<BuildConsoleResult> {
  const log = options.log ?? (() => undefined);
  if (!options.force && isConsoleBuildFresh(options.repoRoot)) return 'up-to-date';
  const paths = consolePaths(options.repoRoot);
  await acquireLock(paths.lockDir, options.lockWaitMs ?? 180_000);
  try {
    // Another process may have built it while this one waited.
    if (!options.force && isConsoleBuildFresh(options.repoRoot)) return 'up-to-date';
    if (!existsSync(paths.viteBin)) {
      throw new Error(
        'cannot build the web console: vite is not installed (run `npm ci` with dev dependencies)',
      );
    }
    const started = Date.now();
    log(
      existsSync(paths.indexFile) ? 'web console sources changed: rebuilding it' : 'building the web console',
    );
    if (options.typecheck) {
      await run(process.execPath, [paths.tscBin, '--noEmit', '-p', paths.tsconfig], options.repoRoot, {});
    }
    const outDir = join(paths.consoleDir, `.dist-${process.pid}-${Date.now()}`);
    try {
      await run(
        process.execPath,
        [paths.viteBin, 'build', '--config', paths.viteConfig, '--logLevel', 'warn'],
        options.repoRoot,
        { CONSOLE_OUT_DIR: outDir },
      );
      rmSync(paths.distDir, { recursive: true, force: true });
      renameSync(outDir, paths.distDir);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
    log(`web console built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 'built';
  } finally {
    rmSync(paths.lockDir, { recursive: true, force: true });
  }
}

async function acquireLock(lockDir: string, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    // A lock left by a process that died mid-build is taken over.
    if (lockIsAbandoned(lockDir)) rmSync(lockDir, { recursive: true, force: true });
    else if (Date.now() > deadline)
      throw new Error(`timed out waiting for another web console build (${lockDir})`);
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function lockIsAbandoned(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    if (Number.isInteger(pid) && pid > 0) {
      process.kill(pid, 0);
      return false;
    }
    return Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return true;
    // No pid file yet (being made) or the lock just went: only a very old one is abandoned.
    try {
      return Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false;
    }
  }
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${basename(args[0] ?? command)} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`,
          ),
        );
    });
  });
}

/**
 * `npm start`: builds the console when needed, before the api starts. A failed build does not stop
 * the stack (the API works without it; `/console` then says how to build it).
 */
export async function buildConsoleForStack(repoRoot: string, log: (line: string) => void): Promise<void> {
  try {
    await ensureConsoleBuilt({ repoRoot, log });
  } catch (err) {
    log(`could not build the web console: ${err instanceof Error ? err.message : String(err)}`);
    log('the API works without it; run `npm run build:console` to see why');
  }
}
