/**
 * The processes of a chaos run, and only those: its own redis-server (append-only file in the run's
 * scratch folder), s3rver in this process, api replicas and worker processes on one SQLite file.
 * Every process is stopped or killed by its own pid; nothing is looked up by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { spawnUntilReady } from '../../infra/local-services/child-process.ts';
import { type LocalS3, startS3Server } from '../../infra/local-services/s3-server.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident set size of a live process, in bytes (Linux /proc), or null once it is gone. */
export function rssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** An unexpected exit of a process the run started (not one it killed or stopped itself). */
export interface UnexpectedExit {
  readonly name: string;
  readonly pid: number;
  readonly at: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One api replica or worker slot: a process that the run kills and starts again. */
export class ManagedProcess {
  readonly name: string;
  readonly kind: 'api' | 'worker';
  readonly port: number | undefined;
  child: ChildProcess | undefined;
  /** Whether clients may send to it (an api), from ready until the run kills it. */
  up = false;
  /** The HTTP connections of this incarnation (an api): a new pool per start, closed at its kill. */
  agent: Agent | undefined;
  /** Times (ms since epoch) the run SIGKILLed it. */
  readonly kills: number[] = [];
  readonly pids: number[] = [];
  private expectedExit = false;
  private readonly log: WriteStream;
  private readonly env: NodeJS.ProcessEnv;
  private readonly onUnexpectedExit: (exit: UnexpectedExit) => void;

  constructor(
    name: string,
    kind: 'api' | 'worker',
    port: number | undefined,
    env: NodeJS.ProcessEnv,
    logDir: string,
    onUnexpectedExit: (exit: UnexpectedExit) => void,
  ) {
    this.name = name;
    this.kind = kind;
    this.port = port;
    this.env = env;
    this.onUnexpectedExit = onUnexpectedExit;
    this.log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
    this.log.on('error', () => undefined); // a log line lost never fails the run
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts it and resolves once it is ready (an api: /readyz answers 200; a worker: "worker ready"). */
  async start(timeoutMs = 40_000): Promise<void> {
    const entry = this.kind === 'api' ? 'api/src/main.ts' : 'workers/src/main.ts';
    const env = this.port === undefined ? this.env : { ...this.env, PORT: String(this.port) };
    const child = spawn(process.execPath, [entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.expectedExit = false;
    if (child.pid !== undefined) this.pids.push(child.pid);
    this.log.write(`--- ${new Date().toISOString()} start pid=${child.pid}\n`);
    let output = '';
    const onData = (data: Buffer) => {
      this.log.write(data);
      if (output.length < 65_536) output += data.toString('utf8');
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      this.up = false;
      this.log.write(`--- ${new Date().toISOString()} exit pid=${child.pid} code=${code} signal=${signal}\n`);
      if (!this.expectedExit && child.pid !== undefined)
        this.onUnexpectedExit({ name: this.name, pid: child.pid, at: Date.now(), code, signal });
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!isRunning(child))
        throw new Error(`${this.name} exited before it was ready:\n${output.slice(-4000)}`);
      if (this.kind === 'worker') {
        if (/worker ready/.test(output)) break;
      } else {
        try {
          const res = await fetch(`${this.origin}/readyz`, { signal: AbortSignal.timeout(1_000) });
          await res.arrayBuffer();
          if (res.status === 200) break;
        } catch {
          // not listening yet
        }
      }
      await sleep(100);
    }
    if (Date.now() >= deadline) {
      this.killNow();
      throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${output.slice(-4000)}`);
    }
    if (this.kind === 'api') this.agent = new Agent({ connections: 128, keepAliveTimeout: 4_000 });
    this.up = true;
  }

  /** SIGKILL (the chaos): resolves once the process is gone. */
  async kill(): Promise<number> {
    const child = this.child;
    this.up = false;
    const at = Date.now();
    if (child === undefined || !isRunning(child)) return at;
    this.expectedExit = true;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    this.kills.push(at);
    await exited;
    const agent = this.agent;
    this.agent = undefined;
    void agent?.destroy().catch(() => undefined);
    return at;
  }

  /** SIGTERM (a clean stop at the end), SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    this.up = false;
    if (child !== undefined && isRunning(child)) {
      this.expectedExit = true;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
    await this.agent?.close().catch(() => undefined);
    this.agent = undefined;
  }

  /** Closes its log file (after the last stop). */
  closeLog(): void {
    if (!this.log.writableEnded) this.log.end();
  }

  /** Synchronous last resort (process exit of the runner). */
  killNow(): void {
    const child = this.child;
    if (child !== undefined && isRunning(child)) {
      this.expectedExit = true;
      child.kill('SIGKILL');
    }
  }
}

/** The run's redis-server on a fixed port, with its append-only file in `dir`: it can be restarted. */
export class ChaosRedis {
  child: ChildProcess | undefined;
  /** Windows during which Redis was not serving: [stopped at, ready again at]. */
  readonly outages: Array<{ from: number; to: number | undefined; empty: boolean }> = [];
  private expectedExit = false;
  readonly port: number;
  private readonly dir: string;
  private readonly onUnexpectedExit: (exit: UnexpectedExit) => void;

  constructor(port: number, dir: string, onUnexpectedExit: (exit: UnexpectedExit) => void) {
    this.port = port;
    this.dir = dir;
    this.onUnexpectedExit = onUnexpectedExit;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      this.dir,
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
      '--logfile',
      '',
    ];
    const { process: owned } = await spawnUntilReady(
      'redis-server',
      'redis-server',
      args,
      /Ready to accept connections/,
    );
    const child = owned.child;
    this.child = child;
    this.expectedExit = false;
    child.once('exit', (code, signal) => {
      if (!this.expectedExit && child.pid !== undefined)
        this.onUnexpectedExit({ name: 'redis-server', pid: child.pid, at: Date.now(), code, signal });
    });
    const open = this.outages.at(-1);
    if (open !== undefined && open.to === undefined) open.to = Date.now();
  }

  /**
   * Stops Redis: with its data (SIGTERM: it writes its append-only file and exits), or empty
   * (SIGKILL, then its data folder is deleted), and starts it again on the same port after `downMs`.
   */
  async restart(
    empty: boolean,
    downMs: number,
  ): Promise<{ pid: number | undefined; newPid: number | undefined }> {
    const child = this.child;
    const pid = child?.pid;
    this.outages.push({ from: Date.now(), to: undefined, empty });
    if (child !== undefined && isRunning(child)) {
      this.expectedExit = true;
      const exited = once(child, 'exit');
      child.kill(empty ? 'SIGKILL' : 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (empty) rmSync(this.dir, { recursive: true, force: true });
    await sleep(downMs);
    await this.start();
    return { pid, newPid: this.child?.pid };
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || !isRunning(child)) return;
    this.expectedExit = true;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  killNow(): void {
    const child = this.child;
    if (child !== undefined && isRunning(child)) {
      this.expectedExit = true;
      child.kill('SIGKILL');
    }
  }
}

export async function startS3(dir: string): Promise<LocalS3> {
  mkdirSync(dir, { recursive: true });
  return startS3Server(dir);
}
