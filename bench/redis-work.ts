/**
 * What a phase's Redis did for the billing scripts, read from `INFO commandstats` once the phase's
 * load ended: every api replica's admissions and settlements run on one Redis, one command at a
 * time, so its time per charge bounds the charges per second of a whole deployment.
 */
import { Redis } from 'ioredis';

export interface RedisWork {
  /** Script calls (EVALSHA and EVAL): admissions, settlement publishes, lease renewals. */
  readonly scriptCalls: number;
  /** Commands the scripts ran inside Redis. */
  readonly commandsInScripts: number;
  /** Redis's own time in the scripts, commands inside included, µs. */
  readonly scriptMicros: number;
}

/**
 * Connection bookkeeping and the blocking reads of idle queue listeners: not the scripts' work.
 * Every other command of a bench phase is run by a script (the api's other clients, the key cache
 * and the BullMQ queues of media routes the bench never calls, send none of them under load).
 */
const NOT_SCRIPT_WORK =
  /^(script\|.*|config\|.*|client\|.*|info|hello|ping|select|quit|subscribe|psubscribe|unsubscribe|xread|xreadgroup|bzpopmin|brpoplpush|blmove)$/;

/** Reads the script counters of the Redis at `url`; null when it cannot be read. */
export async function readRedisWork(url: string): Promise<RedisWork | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const stats = await redis.info('commandstats');
    let scriptCalls = 0;
    let commandsInScripts = 0;
    let scriptMicros = 0;
    for (const line of stats.split('\n')) {
      const match = /^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
      if (match === null) continue;
      const [, name = '', calls = '0', usec = '0'] = match;
      if (name === 'evalsha' || name === 'eval') {
        scriptCalls += Number(calls);
        scriptMicros += Number(usec);
      } else if (!NOT_SCRIPT_WORK.test(name)) commandsInScripts += Number(calls);
    }
    return { scriptCalls, commandsInScripts, scriptMicros };
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}
