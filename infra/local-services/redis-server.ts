import { type OwnedProcess, type ServiceSpawnOptions, spawnUntilReady } from './child-process.ts';
import { freePort } from './free-port.ts';

export interface LocalRedis {
  readonly url: string;
  readonly process: OwnedProcess;
}

/**
 * Starts `redis-server` from the PATH on a free port: in memory only, or, given a `dataDir`, with an
 * append-only file there, so queued jobs and holds outlive a restart. Never touches a Redis that
 * may already run on the standard port.
 */
export async function startRedisServer(
  command = 'redis-server',
  options: ServiceSpawnOptions & { dataDir?: string } = {},
): Promise<LocalRedis> {
  const port = await freePort();
  const persistence =
    options.dataDir === undefined
      ? ['--save', '', '--appendonly', 'no']
      : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', options.dataDir];
  const args = ['--port', String(port), '--bind', '127.0.0.1', ...persistence];
  args.push('--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--loglevel', 'notice', '--logfile', '');
  const ready = /Ready to accept connections/;
  const { process } = await spawnUntilReady('redis-server', command, args, ready, undefined, options);
  return { url: `redis://127.0.0.1:${port}`, process };
}
