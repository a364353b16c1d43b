import { join, resolve } from 'node:path';
import { QUEUE_NAMES } from '../../shared/src/jobs/queue-names.ts';
import { spawnAppProcess } from './app-process.ts';
import { startBackingServices } from './backing-services.ts';
import { printBanner } from './banner.ts';
import { buildConsoleForStack } from './build-console.ts';
import { localChannelKey } from './channel-key.ts';
import { watchExit } from './child-resource.ts';
import { assertCanListen } from './port-check.ts';
import type { StackResources } from './resources.ts';
import { type DemoAccount, type SeedDemoContext, seedDemoAccount } from './seed-demo.ts';
import { envValue, type StackSettings } from './settings.ts';
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
  /**
   * The repository root: the apps run from there. The stack's data (SQLite file, Redis append-only
   * file, s3rver's buckets, the demo key) lives under `.local/`, or under LOCAL_DATA_DIR when set.
   */
  readonly repoRoot: string;
}

/**
 * Starts the backing services, then the api and one worker, waits for the api's /readyz, seeds the
 * demo account and prints the banner. Throws (leaving cleanup to the caller) on any failure.
 */
export async function startStack(context: StackContext): Promise<void> {
  const { settings, signal } = context;
  await assertCanListen(settings.host, settings.port);
  await buildConsoleForStack(context.repoRoot, stackLog);
  const dataDir = resolve(envValue(context.env, 'LOCAL_DATA_DIR') ?? join(context.repoRoot, '.local'));
  const s3Directory = join(dataDir, 's3');
  const sqlitePath = join(dataDir, 'gateway.db');
  const redisDirectory = join(dataDir, 'redis');
  const added = await startBackingServices({ ...context, s3Directory, sqlitePath, redisDirectory });
  const appEnv: NodeJS.ProcessEnv = {
    // The one local worker serves every queue unless told otherwise.
    WORKER_QUEUES: QUEUE_NAMES.join(','),
    // Without provider keys the whole catalogue is answered offline by the demo simulator.
    SIMULATE_PROVIDERS: 'true',
    ...context.env,
    ...added,
    // Channels made through the operator API are sealed under the stack's own key (kept, reused).
    CHANNEL_SECRET_KEY: localChannelKey(dataDir, context.env),
    HOST: settings.host,
    PORT: String(settings.port),
  };
  startApp(context, 'api', 'api/src/main.ts', appEnv);
  startApp(context, 'worker', 'workers/src/main.ts', appEnv);
  stackLog(`waiting for ${settings.origin}/readyz to answer 200 (up to ${settings.readyTimeoutMs / 1000} s)`);
  await waitUntilReady(settings.origin, settings.readyTimeoutMs, signal);
  const savedKeyFile = join(dataDir, 'demo-key.json');
  const demo = await seed({ baseUrl: `${settings.origin}/v1`, env: appEnv, savedKeyFile });
  signal.throwIfAborted();
  printBanner(settings.origin, demo, appEnv.SIMULATE_PROVIDERS === 'true');
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
