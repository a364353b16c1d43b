import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { startRedisServer } from '../local-services/redis-server.ts';
import { startS3Server } from '../local-services/s3-server.ts';
import { childResource, watchExit } from './child-resource.ts';
import { findExecutable } from './find-executable.ts';
import type { StackResources } from './resources.ts';
import { envValue } from './settings.ts';
import { redactUrl, StackError, stackLog } from './stack-log.ts';

export interface BackingServicesContext {
  readonly env: Readonly<NodeJS.ProcessEnv>;
  readonly resources: StackResources;
  /** Aborted when the stack must stop; checked between steps. */
  readonly signal: AbortSignal;
  /** Called when a started service dies on its own. */
  readonly onUnexpectedExit: (reason: StackError) => void;
  /** Where redis-server keeps its append-only file: queues outlive a restart (git-ignored). */
  readonly redisDirectory: string;
  /** Where s3rver keeps its buckets (git-ignored). */
  readonly s3Directory: string;
  /** The SQLite file used unless MONGO_URL names a MongoDB (git-ignored). */
  readonly sqlitePath: string;
}

/**
 * Starts Redis and the S3 server unless the environment already points at them, chooses the durable
 * store (the SQLite file, or the MongoDB of MONGO_URL), and returns the variables to add to the
 * apps' environment. Each service is registered
 * as soon as it runs, so a failure or a signal mid-way still stops it.
 */
export async function startBackingServices(context: BackingServicesContext): Promise<NodeJS.ProcessEnv> {
  const added: NodeJS.ProcessEnv = {};
  Object.assign(added, await ensureRedis(context));
  context.signal.throwIfAborted();
  Object.assign(added, chooseStore(context));
  context.signal.throwIfAborted();
  Object.assign(added, await ensureS3(context));
  context.signal.throwIfAborted();
  return added;
}

async function ensureRedis(context: BackingServicesContext): Promise<NodeJS.ProcessEnv> {
  const existing = envValue(context.env, 'REDIS_URL');
  if (existing !== undefined) return useExisting('REDIS_URL', existing);
  // A Cluster or a Sentinel-managed primary given: no redis-server of the stack's own (the api and
  // the worker check the topology, and refuse a second mode, at their start).
  for (const name of ['REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const) {
    const nodes = envValue(context.env, name);
    if (nodes !== undefined) {
      stackLog(`using ${name}=${nodes} (no redis-server started)`);
      return {};
    }
  }
  const command = findExecutable('redis-server', context.env.PATH);
  if (command === undefined) {
    throw new StackError(
      'redis-server was not found on the PATH. Install it (Debian/Ubuntu: `apt-get install -y redis-server`) ' +
        'or set REDIS_URL to a running Redis.',
    );
  }
  await mkdir(context.redisDirectory, { recursive: true });
  const redis = await startRedisServer(command, { detached: true, dataDir: context.redisDirectory });
  registerChild(context, redis.process.name, redis.process.child);
  stackLog(
    `started redis-server pid=${redis.process.child.pid} url=${redis.url} data=${context.redisDirectory}`,
  );
  return { REDIS_URL: redis.url };
}

/**
 * The store of the api and the worker: the MongoDB of MONGO_URL when set, else one SQLite file that
 * both processes share (SQLITE_PATH, default `.local/gateway.db`), kept across restarts.
 */
function chooseStore(context: BackingServicesContext): NodeJS.ProcessEnv {
  const mongo = envValue(context.env, 'MONGO_URL');
  if (mongo !== undefined) return useExisting('MONGO_URL', mongo);
  const path = resolve(envValue(context.env, 'SQLITE_PATH') ?? context.sqlitePath);
  stackLog(`store: SQLite file ${path} (kept across restarts; set MONGO_URL to use MongoDB)`);
  return { SQLITE_PATH: path };
}

async function ensureS3(context: BackingServicesContext): Promise<NodeJS.ProcessEnv> {
  const existing = envValue(context.env, 'S3_ENDPOINT');
  if (existing !== undefined) return useExisting('S3_ENDPOINT', existing);
  await mkdir(context.s3Directory, { recursive: true });
  const s3 = await startS3Server(context.s3Directory);
  context.resources.add({
    name: 's3rver',
    role: 'service',
    stop: (timeoutMs) => closeWithin(s3.stop(), timeoutMs),
    // In process: it ends with the stack.
    killNow: () => {},
  });
  stackLog(`started s3rver in process endpoint=${s3.endpoint} data=${context.s3Directory}`);
  return {
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

/** s3rver waits for open connections; past the timeout it is left to end with the stack's process. */
async function closeWithin(closing: Promise<void>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still closing after ${timeoutMs} ms; ends with the stack`), timeoutMs);
  });
  const closed = closing.then(() => 'closed');
  try {
    return await Promise.race([closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function registerChild(context: BackingServicesContext, name: string, child: OwnedChild): void {
  context.resources.add(childResource(name, 'service', child));
  watchExit(name, child, context.onUnexpectedExit);
}

type OwnedChild = Parameters<typeof childResource>[2];

function useExisting(variable: string, value: string): NodeJS.ProcessEnv {
  stackLog(`using ${variable} from the environment (${redactUrl(value)}); not starting one`);
  return {};
}
