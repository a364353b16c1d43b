import { type OwnedProcess, type ServiceSpawnOptions, spawnUntilReady } from './child-process.ts';
import { freePort } from './free-port.ts';

export interface LocalRedis {
  readonly url: string;
  readonly process: OwnedProcess;
}

/**
 * Starts `redis-server` from the PATH on a free port, in memory only. Never touches a Redis that
 * may already run on the standard port.
 */
export async function startRedisServer(
  command = 'redis-server',
  options: ServiceSpawnOptions = {},
): Promise<LocalRedis> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--maxmemory-policy', 'noeviction', '--daemonize', 'no', '--loglevel', 'notice', '--logfile', '');
  const ready = /Ready to accept connections/;
  const { process } = await spawnUntilReady('redis-server', command, args, ready, undefined, options);
  return { url: `redis://127.0.0.1:${port}`, process };
}
