import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
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
  'REDIS_CLUSTER_NODES',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_MASTER',
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

/** Each run keeps its data (SQLite file, Redis, S3, demo key) in a folder of its own, never the repo's `.local/`. */
function startStack(overrides: NodeJS.ProcessEnv): StackRun {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOCAL_DATA_DIR: mkdtempSync(join(tmpdir(), 'stack-data-')),
    ...overrides,
  };
  delete env.SQLITE_PATH;
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
    // No provider key: the whole catalogue is listed and answered by the demo simulator.
    const run = startStack({ PORT: String(port) });

    const [, baseUrl] = await run.waitFor(READY_LINE, READY_TIMEOUT_MS);
    expect(baseUrl).toBe(`http://127.0.0.1:${port}/v1`);
    expect([...run.startedPids().keys()].sort()).toEqual(['api', 'redis-server', 'worker']);
    expect(run.output).toMatch(/\[stack\] store: SQLite file \S+gateway\.db/);
    // Its own services' credentials are long enough for the secret scrubber: a start without warnings.
    expect(run.output).not.toMatch(/shorter than the safe minimum/);

    const response = await fetch(`${baseUrl}/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: unknown[] };
    expect(body.data.length).toBeGreaterThanOrEqual(80);

    const [, demoKey] = await run.waitFor(/demo key: (hk-\S+)/, READY_TIMEOUT_MS);
    expect(run.tail()).toContain('providers without an API key (<PROVIDER>_API_KEY) are simulated offline');
    const simulated = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(simulated.status).toBe(200);
    const { service } = (await simulated.json()) as { service: { cost: number } };
    expect(service.cost).toBeGreaterThan(0);
    expect(run.tail()).toContain(`curl -s ${baseUrl}/balance -H 'Authorization: Bearer ${demoKey}'`);
    const balance = await fetch(`${baseUrl}/balance`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(balance.status).toBe(200);
    // The demo credit, less the chat's cost once its charge is written (the next settlement batch).
    const shown = (await balance.json()) as { object: string; currency: string; balance: number };
    expect(shown).toMatchObject({ object: 'balance', currency: 'IRT' });
    expect([1_000_000, Number((1_000_000 - service.cost).toFixed(4))]).toContain(shown.balance);

    // Next to the key: the console, and a one-time invitation link that sets the demo password.
    const origin = (baseUrl as string).replace(/\/v1$/, '');
    expect(run.tail()).toContain(`console:  ${origin}/console  (sign in as demo@gateway.local)`);
    const [, invite] = await run.waitFor(INVITE_LINE, READY_TIMEOUT_MS);
    expect(invite).toMatch(new RegExp(`^${origin.replaceAll('.', '\\.')}/console/invite#token=`));
    expect((await setPassword(origin, invite as string)).status).toBe(200);
    expect((await setPassword(origin, invite as string)).status).toBe(400);

    run.child.kill('SIGTERM');
    expect(await run.waitForExit(EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    expectAllGone(run);
  });

  it('keeps every account, key, balance, ledger entry, usage row and media job across a restart', {
    timeout: 150_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stack-restart-'));
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: dataDir, ADMIN_TOKEN: RESTART_ADMIN_TOKEN };
    const first = startStack(env);
    const [, baseUrl] = await first.waitFor(READY_LINE, READY_TIMEOUT_MS);
    const [, demoKey] = await first.waitFor(/demo key: (hk-\S+)/, READY_TIMEOUT_MS);
    const [, invite] = await first.waitFor(INVITE_LINE, READY_TIMEOUT_MS);
    expect((await setPassword((baseUrl as string).replace(/\/v1$/, ''), invite as string)).status).toBe(200);
    const api = stackClient(baseUrl as string, demoKey as string);
    const chat = await api.post('/chat/completions', {
      model: 'demo/chat',
      messages: [{ role: 'user', content: 'remember me' }],
    });
    expect(chat.status).toBe(200);
    // A channel sealed under the stack's generated key, which the next start must open again.
    const origin0 = (baseUrl as string).replace(/\/v1$/, '');
    const adminHeaders = {
      authorization: `Bearer ${RESTART_ADMIN_TOKEN}`,
      'content-type': 'application/json',
    };
    const made = await fetch(`${origin0}/admin/v1/channels`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify({
        provider: 'openai',
        name: 'kept',
        api_key: 'sk-kept-across-restarts',
        enabled: false,
      }),
    });
    expect(made.status).toBe(201);
    expect(statSync(join(dataDir, 'channel-secret.key')).mode & 0o777).toBe(0o600);
    const video = await api.post('/videos', { model: 'demo/video', prompt: 'a kept video', duration: 4 });
    expect(video.status).toBe(202);
    const videoId = ((await video.json()) as { id: string }).id;
    // A render still running at the snapshot would be charged after it, before or after the restart:
    // the comparison needs it finished (and charged) first.
    await waitUntilRendered(api, videoId);
    await waitUntilSettled(api);
    const before = await api.snapshot(videoId);
    expect(before.ledger.length).toBeGreaterThanOrEqual(2);

    first.child.kill('SIGTERM');
    expect(await first.waitForExit(EXIT_TIMEOUT_MS)).toEqual({ code: 0, signal: null });

    const second = startStack(env);
    await second.waitFor(READY_LINE, READY_TIMEOUT_MS);
    const [, keyAgain] = await second.waitFor(/demo key: (hk-\S+)/, READY_TIMEOUT_MS);
    expect(keyAgain).toBe(demoKey);
    const after = await api.snapshot(videoId);
    expect(after.balance).toEqual(before.balance);
    expect(after.usage).toEqual(before.usage);
    expect(after.keys).toEqual(before.keys);
    expect(after.ledger.slice(-before.ledger.length)).toEqual(before.ledger);
    expect(after.video).toMatchObject({ id: videoId, model: 'demo/video' });
    const channels = await fetch(`${origin0}/admin/v1/channels`, { headers: adminHeaders });
    const listed = (await channels.json()) as { data: Array<{ name: string; key_last4: string }> };
    expect(listed.data.find((c) => c.name === 'kept')?.key_last4).toBe('arts');
    // The password set through the first run's link is kept: this run prints a reset link instead.
    const [, reset] = await second.waitFor(RESET_LINE, READY_TIMEOUT_MS);
    expect(second.output).not.toMatch(INVITE_LINE);
    const origin = (baseUrl as string).replace(/\/v1$/, '');
    expect((await setPassword(origin, invite as string)).status).toBe(400);
    expect((await setPassword(origin, reset as string)).status).toBe(200);
    second.child.kill('SIGTERM');
    await second.waitForExit(EXIT_TIMEOUT_MS);
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

const RESTART_ADMIN_TOKEN = 'restart-test-admin-token-0123456789';
const INVITE_LINE = /^ {2}invite: +(\S+#token=\S+) {2}\(sets its password/m;
const RESET_LINE = /^ {2}reset: +(\S+#token=\S+) {2}\(password reset link/m;

/** Follows a console link of the banner as the console's page does: sets a password with its token. */
function setPassword(origin: string, link: string): Promise<Response> {
  const token = new URL(link).hash.replace(/^#token=/, '');
  return fetch(`${origin}/console/api/password/set`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'console' },
    body: JSON.stringify({ token, password: 'demo password 123' }),
  });
}

/** What a user and the operator can read of the demo account, to compare across a restart. */
function stackClient(baseUrl: string, key: string) {
  const origin = baseUrl.replace(/\/v1$/, '');
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const admin = { authorization: `Bearer ${RESTART_ADMIN_TOKEN}` };
  const json = async (url: string, headers: Record<string, string>) => {
    const response = await fetch(url, { headers });
    expect(response.status, url).toBe(200);
    return (await response.json()) as Record<string, unknown> & { data?: unknown[] };
  };
  return {
    post: (path: string, body: unknown) =>
      fetch(`${baseUrl}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) }),
    balance: async () => (await json(`${baseUrl}/balance`, auth)).balance,
    video: (videoId: string) => json(`${baseUrl}/videos/${videoId}`, auth),
    async snapshot(videoId: string) {
      const balance = await json(`${baseUrl}/balance`, auth);
      const usage = await json(`${baseUrl}/usage?days=2`, auth);
      const accountId = await demoAccountId(origin, admin);
      const keys = await json(`${origin}/admin/v1/accounts/${accountId}/keys`, admin);
      const ledger = await json(`${origin}/admin/v1/accounts/${accountId}/ledger?limit=100`, admin);
      const video = await json(`${baseUrl}/videos/${videoId}`, auth);
      return {
        balance: balance.balance,
        usage: usage.data,
        keys: keys.data,
        ledger: ledger.data ?? [],
        video,
      };
    },
  };
}

async function demoAccountId(origin: string, admin: Record<string, string>): Promise<string> {
  // The demo account is the one the demo key belongs to; its id is in the ledger of its top-up.
  const response = await fetch(`${origin}/admin/v1/accounts?email=demo%40gateway.local`, { headers: admin });
  const body = (await response.json()) as { data?: Array<{ id: string }>; id?: string };
  const id = body.data?.[0]?.id ?? body.id;
  if (id === undefined) throw new Error(`demo account not found: ${JSON.stringify(body)}`);
  return id;
}

/** Polls the video until its render ended (completed or failed). */
async function waitUntilRendered(api: ReturnType<typeof stackClient>, videoId: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    const video = await api.video(videoId);
    if (video.status !== 'in_progress') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`video ${videoId} still renders after 30 s`);
}

/** Deferred charges are written within a moment; wait until the balance stops moving. */
async function waitUntilSettled(api: ReturnType<typeof stackClient>): Promise<void> {
  let last = await api.balance();
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await api.balance();
    if (now === last && i > 2) return;
    last = now;
  }
}
