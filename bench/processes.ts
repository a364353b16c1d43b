/**
 * The processes `npm run bench` starts, and only those: each one is spawned in its own process
 * group (so a Ctrl-C in the terminal reaches the runner alone, which then stops them in order) and
 * is stopped by its own id, never by name.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';

export interface Owned {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** SIGTERM to its process group, SIGKILL after `timeoutMs`; resolves once it exited. */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL to its process group, synchronously (last resort, from an 'exit' listener). */
  killNow(): void;
}

const started: Owned[] = [];

/** Stops every owned process, newest first (the api before its stores). */
export async function stopAll(log: (line: string) => void): Promise<void> {
  for (const owned of [...started].reverse()) {
    await owned.stop().catch((err: unknown) => log(`could not stop ${owned.name}: ${String(err)}`));
    log(`stopped ${owned.name} (pid ${owned.pid})`);
  }
}

export function killAllNow(): void {
  for (const owned of started) owned.killNow();
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Takes ownership of a child spawned with `detached: true` (so its pid is its group id). */
export function own(name: string, child: ChildProcess): Owned {
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const pid = child.pid;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const owned: Owned = {
    name,
    pid,
    child,
    async stop(timeoutMs = 10_000) {
      if (isRunning(child)) {
        const exited = once(child, 'exit');
        signalGroup('SIGTERM');
        const timer = setTimeout(() => signalGroup('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      // Anything the process itself started in its group (wrk under bench.mjs) goes with it.
      signalGroup('SIGKILL');
      const at = started.indexOf(owned);
      if (at >= 0) started.splice(at, 1);
    },
    killNow() {
      if (isRunning(child)) signalGroup('SIGKILL');
    },
  };
  started.push(owned);
  return owned;
}

export interface SpawnSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Output goes to this file (appended); none: inherited by the runner's terminal. */
  readonly logFile?: string;
  /** Runs it under `taskset -c <cpus>` when given and taskset exists. */
  readonly cpus?: string;
}

/** Spawns a long-running process in its own group and owns it. */
export function startProcess(spec: SpawnSpec): Owned {
  const [command, args] = pinned(spec.cpus, spec.command, spec.args);
  const child = spawn(command, args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    detached: true,
    stdio: ['ignore', spec.logFile ? 'pipe' : 'inherit', spec.logFile ? 'pipe' : 'inherit'],
  });
  if (spec.logFile) {
    const out = createWriteStream(spec.logFile, { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  return own(spec.name, child);
}

/** Runs a process to its end (owned while it runs); rejects on a non-zero exit. */
export async function runToEnd(spec: SpawnSpec): Promise<void> {
  const owned = startProcess(spec);
  const [code, signal] = (await once(owned.child, 'exit')) as [number | null, NodeJS.Signals | null];
  await owned.stop();
  if (code !== 0) throw new Error(`${spec.name} exited with ${code ?? signal}`);
}

/** The command under `taskset -c <cpus>` when given and taskset exists. */
function pinned(cpus: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  const taskset = cpus && existsSync('/usr/bin/taskset');
  return taskset ? ['/usr/bin/taskset', ['-c', cpus, command, ...args]] : [command, [...args]];
}

/** Moves every thread of a running process (and so its future threads) onto `cpus`. */
export function pinRunning(pid: number, cpus: string | undefined): void {
  if (!cpus || !existsSync('/usr/bin/taskset')) return;
  execFileSync('/usr/bin/taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Polls `url` until it answers `ok(status)`, or throws after `timeoutMs`. */
export async function waitForHttp(
  url: string,
  owned: Owned,
  ok: (status: number) => boolean = (status) => status < 500,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(owned.child)) throw new Error(`${owned.name} exited before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (ok(res.status)) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${owned.name} was not ready at ${url} after ${timeoutMs} ms`);
}

/**
 * Runs a bench's `main` owning what it starts: everything it started is stopped (by pid) when it
 * ends, fails, meets a signal or its time limit; a second signal kills at once. Exits 0 when main
 * resolves anything but `false`, 1 on `false` or a failure, 130 on a signal.
 */
export function runOwning(
  main: () => Promise<unknown>,
  options: { readonly name: string; readonly timeLimitS: number; readonly log: (line: string) => void },
): void {
  const { log } = options;
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
  const limit = `time limit of ${options.timeLimitS} s reached`;
  setTimeout(() => void stopAndExit(limit, 1), options.timeLimitS * 1000).unref();
  main().then(
    (met) => void stopAndExit('finished', met === false ? 1 : 0),
    (err: unknown) => {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`[${options.name}] failed: ${message}\n`);
      void stopAndExit('failure', 1);
    },
  );
}
