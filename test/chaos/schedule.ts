/**
 * The chaos schedule: which process is killed or restarted when, planned from a seed (times jittered
 * around evenly spaced slots, targets drawn at random) and carried out while the load runs. Each
 * event is logged with its wall-clock time, its offset from the start of the load and the pids.
 */
import { seededRandom } from './load.ts';
import type { ChaosRedis, ManagedProcess } from './processes.ts';

export type ChaosAction =
  | 'kill-worker'
  | 'kill-api'
  | 'kill-api-and-worker'
  | 'restart-redis'
  | 'restart-redis-empty';

export interface PlannedEvent {
  /** Offset from the start of the load. */
  readonly atMs: number;
  readonly action: ChaosAction;
  /** Index of the api replica and of the worker it targets. */
  readonly api: number;
  readonly worker: number;
}

export interface ExecutedEvent {
  readonly action: ChaosAction;
  readonly plannedMs: number;
  /** Offset from the start of the load when it began, and wall-clock time. */
  readonly atMs: number;
  readonly at: string;
  readonly targets: string[];
  readonly killedPids: Array<number | undefined>;
  newPids: Array<number | undefined>;
  /** How long the target was down (killed or stopped until ready again). */
  downMs?: number;
  error?: string;
}

/** Evenly spaced slots over [firstMs, lastMs], each jittered by up to a fifth of a slot. */
export function planSchedule(
  actions: readonly ChaosAction[],
  options: { seed: number; firstMs: number; lastMs: number; apis: number; workers: number },
): PlannedEvent[] {
  const random = seededRandom(options.seed);
  const gap = actions.length > 1 ? (options.lastMs - options.firstMs) / (actions.length - 1) : 0;
  return actions.map((action, i) => {
    const jitter = i === 0 || i === actions.length - 1 ? 0 : (random() - 0.5) * 0.4 * gap;
    return {
      atMs: Math.round(options.firstMs + i * gap + jitter),
      action,
      api: Math.floor(random() * options.apis),
      worker: Math.floor(random() * options.workers),
    };
  });
}

export interface ScheduleTargets {
  readonly apis: readonly ManagedProcess[];
  readonly workers: readonly ManagedProcess[];
  readonly redis: ChaosRedis;
  /** Pause between a process's kill and its start again. */
  readonly apiDownMs: number;
  readonly workerDownMs: number;
  readonly redisDownMs: number;
  /**
   * Before an api is killed, waits (at most `killAimMs`) until it serves a synchronous media
   * request, so that the kill leaves a job behind with nobody waiting for it.
   */
  readonly busyWithMedia?: (replica: string) => boolean;
  readonly killAimMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills `process`, waits, starts it again (up to three tries); the event's pids and down time. */
async function killAndRestart(process: ManagedProcess, downMs: number, event: ExecutedEvent): Promise<void> {
  const pid = process.pid;
  event.killedPids.push(pid);
  const killedAt = await process.kill();
  await sleep(downMs);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await process.start();
      event.newPids.push(process.pid);
      event.downMs = Math.max(event.downMs ?? 0, Date.now() - killedAt);
      return;
    } catch (err) {
      lastError = err;
      await sleep(1_000);
    }
  }
  event.newPids.push(undefined);
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  event.error = `${process.name} did not start again: ${message.slice(0, 500)}`;
}

/** Waits until `api` serves a synchronous media request (bounded): the kill then cuts one. */
async function aimAt(api: ManagedProcess, targets: ScheduleTargets): Promise<void> {
  const busy = targets.busyWithMedia;
  if (busy === undefined) return;
  const until = Date.now() + (targets.killAimMs ?? 3_000);
  while (!busy(api.name) && Date.now() < until) await sleep(2);
}

/** Carries the plan out, one event after the other, from `loadStartedAt` (the load waits for its end). */
export async function runSchedule(
  plan: readonly PlannedEvent[],
  targets: ScheduleTargets,
  loadStartedAt: number,
  log: (line: string) => void,
): Promise<ExecutedEvent[]> {
  const executed: ExecutedEvent[] = [];
  for (const planned of plan) {
    const wait = loadStartedAt + planned.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const api = targets.apis[planned.api] as ManagedProcess;
    const worker = targets.workers[planned.worker] as ManagedProcess;
    if (planned.action === 'kill-api' || planned.action === 'kill-api-and-worker') await aimAt(api, targets);
    const now = Date.now();
    const event: ExecutedEvent = {
      action: planned.action,
      plannedMs: planned.atMs,
      atMs: now - loadStartedAt,
      at: new Date(now).toISOString(),
      targets: [],
      killedPids: [],
      newPids: [],
    };
    executed.push(event);
    const t = `t=${(event.atMs / 1000).toFixed(1)}s`;
    switch (planned.action) {
      case 'kill-worker':
        event.targets.push(worker.name);
        log(`${event.at} ${t} SIGKILL ${worker.name} pid=${worker.pid}`);
        await killAndRestart(worker, targets.workerDownMs, event);
        break;
      case 'kill-api':
        event.targets.push(api.name);
        log(`${event.at} ${t} SIGKILL ${api.name} pid=${api.pid}`);
        await killAndRestart(api, targets.apiDownMs, event);
        break;
      case 'kill-api-and-worker':
        event.targets.push(api.name, worker.name);
        log(`${event.at} ${t} SIGKILL ${api.name} pid=${api.pid} and ${worker.name} pid=${worker.pid}`);
        await Promise.all([
          killAndRestart(api, targets.apiDownMs, event),
          killAndRestart(worker, targets.workerDownMs, event),
        ]);
        break;
      case 'restart-redis':
      case 'restart-redis-empty': {
        const empty = planned.action === 'restart-redis-empty';
        event.targets.push('redis-server');
        log(
          `${event.at} ${t} ${empty ? 'SIGKILL redis-server and delete its data' : 'SIGTERM redis-server (keeps its append-only file)'} pid=${targets.redis.child?.pid}`,
        );
        const started = Date.now();
        try {
          const { pid, newPid } = await targets.redis.restart(empty, targets.redisDownMs);
          event.killedPids.push(pid);
          event.newPids.push(newPid);
        } catch (err) {
          event.error = `redis-server did not start again: ${err instanceof Error ? err.message : String(err)}`;
        }
        event.downMs = Date.now() - started;
        break;
      }
    }
    log(
      `${new Date().toISOString()} ${t} ${planned.action} done: new pid(s) ${event.newPids.join(', ')}, down ${event.downMs ?? '?'} ms${event.error ? `; ${event.error}` : ''}`,
    );
  }
  return executed;
}
