import { join } from 'node:path';
import { QUEUE_NAMES } from '../../shared/src/jobs/queue-names.ts';
import { spawnAppProcess } from './app-process.ts';
import { startBackingServices } from './backing-services.ts';
import { printBanner } from './banner.ts';
import { watchExit } from './child-resource.ts';
import { assertCanListen } from './port-check.ts';
import type { StackResources } from './resources.ts';
import { type DemoAccount, type SeedDemoContext, seedDemoAccount } from './seed-demo.ts';
import type { StackSettings } from './settings.ts';
import { type StackError, stackLog } from './stack-log.ts';
import { waitUntilReady } from './wait-ready.ts';

export interface StackContext {
  readonly settings: StackSettings;
  /** The stack's own environment, passed on to every app process. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  readonly resources: StackResources;
  /** Aborted when the stack must stop: a signal, or a child that died. */
  readonly signal: AbortSignal;
  readonly onUnexpectedExit: (reason: StackError) => void;
  /** The repository root: the apps run from there and s3rver keeps its data under `.local/s3`. */
  readonly repoRoot: string;
}

/**
 * Starts the backing services, then the api and one worker, waits for the api's /readyz, seeds the
 * demo account and prints the banner. Throws (leaving cleanup to the caller) on any failure.
 */
export async function startStack(context: StackContext): Promise<void> {
  const { settings, signal } = context;
  await assertCanListen(settings.host, settings.port);
  const s3Directory = join(context.repoRoot, '.local', 's3');
  const added = await startBackingServices({ ...context, s3Directory });
  const appEnv: NodeJS.ProcessEnv = {
    // The one local worker serves every queue unless told otherwise.
    WORKER_QUEUES: QUEUE_NAMES.join(','),
    ...context.env,
    ...added,
    HOST: settings.host,
    PORT: String(settings.port),
  };
  startApp(context, 'api', 'api/src/main.ts', appEnv);
  startApp(context, 'worker', 'workers/src/main.ts', appEnv);
  stackLog(`waiting for ${settings.origin}/readyz to answer 200 (up to ${settings.readyTimeoutMs / 1000} s)`);
  await waitUntilReady(settings.origin, settings.readyTimeoutMs, signal);
  const demo = await seed({ baseUrl: `${settings.origin}/v1`, env: appEnv });
  signal.throwIfAborted();
  printBanner(settings.origin, demo);
}

function startApp(context: StackContext, name: string, entry: string, env: NodeJS.ProcessEnv): void {
  const { resource, child } = spawnAppProcess(name, join(context.repoRoot, entry), context.repoRoot, env);
  context.resources.add(resource);
  watchExit(name, child, context.onUnexpectedExit);
  stackLog(`started ${name} pid=${child.pid} (node ${entry})`);
}

/** A failing seed is reported but does not take the stack down: the gateway itself works. */
async function seed(context: SeedDemoContext): Promise<DemoAccount | undefined> {
  try {
    return await seedDemoAccount(context);
  } catch (err) {
    stackLog(`could not create the demo account: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
