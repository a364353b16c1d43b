import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local-services/free-port.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STACK_ENTRY = join(REPO_ROOT, 'infra', 'local-stack.ts');
const READY_LINE = /^Gateway ready at (\S+)$/m;
const STARTED_LINE = /^\[stack\] started (\S+) pid=(\d+)/gm;
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 20_000;
/** Variables that would make the stack use existing services instead of starting its own. */
const EXTERNAL_SERVICES = [
  'REDIS_URL',
  'MONGO_URL',
  'S3_ENDPOINT',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
];

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The stack under test, run as the user runs it: `node infra/local-stack.ts`. */
class StackRun {
  readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  #output = '';

  constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [STACK_ENTRY], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (data: Buffer) => this.#append(data));
    this.child.stderr?.on('data', (data: Buffer) => this.#append(data));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get output(): string {
    return this.#output;
  }

  /** Every process the stack said it started, by name. */
  startedPids(): Map<string, number> {
    return new Map([...this.#output.matchAll(STARTED_LINE)].map((m) => [m[1] ?? '', Number(m[2])]));
  }

  /** Resolves with the first match of `pattern` in the output; rejects when the stack exits first. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = this.#output.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null || this.child.signalCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `no ${pattern} in the stack's output (exit code ${this.child.exitCode}):\n${this.tail()}`,
    );
  }

  async waitForExit(timeoutMs: number): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the stack still runs after ${timeoutMs} ms:\n${this.tail()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  tail(): string {
    return this.#output.slice(-4_000);
  }

  #append(data: Buffer): void {
    this.#output += data.toString('utf8');
  }
}

const runs: StackRun[] = [];
const servers: Server[] = [];

function startStack(overrides: NodeJS.ProcessEnv): StackRun {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...overrides };
  for (const name of EXTERNAL_SERVICES) delete env[name];
  const run = new StackRun(env);
  runs.push(run);
  return run;
}

/** The error code `kill(pid, 0)` gives: ESRCH once the process is gone (and reaped). */
function probeError(pid: number): string | undefined {
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
}

function expectAllGone(run: StackRun): void {
  for (const [name, pid] of run.startedPids()) {
    expect(probeError(pid), `${name} (pid ${pid}) must be gone`).toBe('ESRCH');
  }
}

// A failed test must not leave processes behind: kill the stack and what it said it started.
afterEach(async () => {
  for (const run of runs.splice(0)) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) continue;
    run.child.kill('SIGKILL');
    await run.exited;
    for (const pid of run.startedPids().values())
      if (probeError(pid) === undefined) process.kill(pid, 'SIGKILL');
  }
  for (const server of servers.splice(0)) server.close();
});

describe('local stack (npm start)', () => {
  it('starts every service, serves the catalogue, and stops everything it started on SIGTERM', {
    timeout: 90_000,
  }, async () => {
    const port = await freePort();
    const run = startStack({ PORT: String(port) });

    const [, baseUrl] = await run.waitFor(READY_LINE, READY_TIMEOUT_MS);
    expect(baseUrl).toBe(`http://127.0.0.1:${port}/v1`);
    expect([...run.startedPids().keys()].sort()).toEqual(['api', 'jongodb', 'redis-server', 'worker']);

    const response = await fetch(`${baseUrl}/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: unknown[] };
    expect(body.data.length).toBeGreaterThanOrEqual(80);

    const [, demoKey] = await run.waitFor(/demo key: (hk-\S+)/, READY_TIMEOUT_MS);
    expect(run.tail()).toContain(`curl -s ${baseUrl}/balance -H 'Authorization: Bearer ${demoKey}'`);
    const balance = await fetch(`${baseUrl}/balance`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({ object: 'balance', currency: 'IRT', balance: 1_000_000 });

    run.child.kill('SIGTERM');
    expect(await run.waitForExit(EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    expectAllGone(run);
  });

  it('exits non-zero, naming the child, when a child dies, and stops the rest', {
    timeout: 90_000,
  }, async () => {
    const run = startStack({ PORT: String(await freePort()) });
    await run.waitFor(READY_LINE, READY_TIMEOUT_MS);
    const worker = run.startedPids().get('worker');
    expect(worker).toBeDefined();

    process.kill(worker as number, 'SIGKILL');
    const exit = await run.waitForExit(EXIT_TIMEOUT_MS);
    expect(exit.code).not.toBe(0);
    expect(run.output).toMatch(/worker exited unexpectedly \(signal SIGKILL\)/);
    expectAllGone(run);
  });

  it('rejects an invalid PORT before it starts anything', { timeout: 90_000 }, async () => {
    const run = startStack({ PORT: 'abc' });
    const exit = await run.waitForExit(EXIT_TIMEOUT_MS);
    expect(exit.code).not.toBe(0);
    expect(run.output).toMatch(/PORT must be a whole number/);
    expectAllGone(run);
    expect(run.output).not.toMatch(READY_LINE);
  });

  it('says how to install redis-server when it is not on the PATH', { timeout: 90_000 }, async () => {
    const emptyDirectory = mkdtempSync(join(tmpdir(), 'no-redis-'));
    const run = startStack({ PORT: String(await freePort()), PATH: emptyDirectory });
    const exit = await run.waitForExit(EXIT_TIMEOUT_MS);
    expect(exit.code).not.toBe(0);
    expect(run.output).toContain('apt-get install -y redis-server');
    expect(run.startedPids().size).toBe(0);
  });

  it('refuses a port that is already taken, before it starts anything', { timeout: 90_000 }, async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };

    const run = startStack({ PORT: String(port) });
    const exit = await run.waitForExit(EXIT_TIMEOUT_MS);
    expect(exit.code).not.toBe(0);
    expect(run.output).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(run.startedPids().size).toBe(0);
  });
});
