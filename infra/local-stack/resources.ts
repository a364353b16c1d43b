import { stackLog } from './stack-log.ts';

/** Something the stack started and must stop: a child process or the in-process S3 server. */
export interface StackResource {
  readonly name: string;
  /** Apps (api, worker) stop first, together; services after them, newest first. */
  readonly role: 'app' | 'service';
  /** Stops gracefully, forcing after `timeoutMs`; resolves with a short note on how it ended. */
  stop(timeoutMs: number): Promise<string>;
  /** Last resort when the stack itself must exit now: SIGKILL, synchronously. */
  killNow(): void;
}

/** The resources the stack started, in start order; stopping them is the only cleanup there is. */
export class StackResources {
  readonly #started: StackResource[] = [];

  add(resource: StackResource): void {
    this.#started.push(resource);
  }

  /** Stops the apps first (in parallel), then the services in reverse start order. */
  async stopAll(appTimeoutMs: number, serviceTimeoutMs: number): Promise<void> {
    const apps = this.#started.filter((r) => r.role === 'app');
    const services = this.#started.filter((r) => r.role === 'service').reverse();
    await Promise.all(apps.map((app) => stopOne(app, appTimeoutMs)));
    for (const service of services) await stopOne(service, serviceTimeoutMs);
    this.#started.length = 0;
  }

  /** SIGKILLs whatever is still running; safe to call from a process 'exit' listener. */
  killAllNow(): void {
    for (const resource of this.#started) resource.killNow();
  }
}

async function stopOne(resource: StackResource, timeoutMs: number): Promise<void> {
  try {
    const outcome = await resource.stop(timeoutMs);
    stackLog(`stopped ${resource.name} (${outcome})`);
  } catch (err) {
    stackLog(`could not stop ${resource.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
