/**
 * The whole gateway on one machine, for development: `npm start`.
 *
 * Starts redis-server and s3rver unless REDIS_URL or S3_ENDPOINT point at running ones, keeps the
 * durable state in the SQLite file `.local/gateway.db` (or the MongoDB of MONGO_URL), then starts the
 * api and one worker; waits for /readyz and prints the base URL.
 * On Ctrl-C, SIGINT or SIGTERM it stops the apps, then the services: only what it started.
 */
import { fileURLToPath } from 'node:url';
import { StackResources } from './local-stack/resources.ts';
import { readStackSettings, type StackSettings } from './local-stack/settings.ts';
import { describeFailure, ShutdownRequest, type StackError, stackLog } from './local-stack/stack-log.ts';
import { startStack } from './local-stack/start-stack.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVICE_STOP_TIMEOUT_MS = 5_000;
const FALLBACK_APP_STOP_TIMEOUT_MS = 15_000;
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

async function main(): Promise<void> {
  const controller = new AbortController();
  const resources = new StackResources();
  const stopWith = (reason: unknown) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  // Whatever happens to this process, nothing it started may outlive it.
  process.on('exit', () => resources.killAllNow());
  handleSignals(controller.signal, resources, stopWith);
  const onCrash = (err: unknown) => {
    if (controller.signal.aborted) stackLog(`error while stopping: ${describeFailure(err)}`);
    stopWith(err);
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  let settings: StackSettings | undefined;
  try {
    settings = readStackSettings(process.env);
    const onUnexpectedExit = (reason: StackError) => stopWith(reason);
    await startStack({
      settings,
      env: process.env,
      resources,
      signal: controller.signal,
      onUnexpectedExit,
      repoRoot: REPO_ROOT,
    });
    await untilAborted(controller.signal);
  } catch (err) {
    stopWith(err);
  }
  const requested = controller.signal.reason instanceof ShutdownRequest;
  const reason = describeFailure(controller.signal.reason);
  stackLog(requested ? `${reason}: stopping` : `error: ${reason}\n[stack] stopping everything it started`);
  await resources.stopAll(
    settings?.appStopTimeoutMs ?? FALLBACK_APP_STOP_TIMEOUT_MS,
    SERVICE_STOP_TIMEOUT_MS,
  );
  stackLog(requested ? 'stopped' : 'stopped after an error; exit code 1');
  process.exit(requested ? 0 : 1);
}

/** The first signal stops in order; a second one, while stopping, kills everything at once. */
function handleSignals(
  signal: AbortSignal,
  resources: StackResources,
  stopWith: (reason: unknown) => void,
): void {
  for (const name of STOP_SIGNALS) {
    process.on(name, () => {
      if (!signal.aborted) return stopWith(new ShutdownRequest(name));
      stackLog(`${name} again: killing everything now`);
      resources.killAllNow();
      process.exit(1);
    });
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

await main();
