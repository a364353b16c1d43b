import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../shared/src/config/config.ts';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
};

describe('Redis connection modes', () => {
  it('REDIS_URL: one node, BullMQ under the queue prefix as it is', () => {
    const config = loadConfig({ REDIS_URL: 'rediss://:pw@cache:6380/2' });
    expect(config.redis).toEqual({ mode: 'single', url: 'rediss://:pw@cache:6380/2' });
    expect(config.queues).toEqual({ prefix: 'gw', bullmqPrefix: 'gw' });
  });

  it('REDIS_CLUSTER_NODES: seeds, password, TLS; BullMQ under a hash-tagged prefix', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-1.internal:7001,[::1]:7002 ',
      REDIS_PASSWORD: 'secret',
      REDIS_USERNAME: 'gateway',
      REDIS_TLS: 'true',
      QUEUE_PREFIX: 'prod',
    });
    expect(config.redis).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-1.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: 'gateway',
      password: 'secret',
      tls: true,
    });
    expect(config.queues).toEqual({ prefix: 'prod', bullmqPrefix: '{prod}' });
  });

  it('REDIS_SENTINELS with REDIS_SENTINEL_MASTER, and the sentinels own password', () => {
    const config = loadConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379',
      REDIS_SENTINEL_MASTER: 'gateway',
      REDIS_PASSWORD: 'p',
      REDIS_SENTINEL_PASSWORD: 'sp',
    });
    expect(config.redis).toMatchObject({
      mode: 'sentinel',
      masterName: 'gateway',
      password: 'p',
      sentinelPassword: 'sp',
      tls: false,
    });
    expect(config.queues.bullmqPrefix).toBe('gw');
  });

  it('refuses two modes at once, naming both', () => {
    expect(problemsOf({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'a:7000' })).toEqual([
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: set exactly one of REDIS_URL (one node), REDIS_CLUSTER_NODES (a Cluster) or REDIS_SENTINELS (a Sentinel-managed primary)',
    ]);
    expect(
      problemsOf({
        REDIS_CLUSTER_NODES: 'a:7000',
        REDIS_SENTINELS: 'a:26379',
        REDIS_SENTINEL_MASTER: 'm',
      })[0],
    ).toMatch(/^REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set/);
  });

  it.each([
    ['a', '"a" is not one'],
    ['a:0', '"a:0" is not one'],
    ['a:70000', '"a:70000" is not one'],
    ['redis://a:7000', '"redis://a:7000" is not one'],
    ['a:7000,,b:7001', 'an entry is empty'],
    [',', 'must list at least one host:port'],
    ['a:7000,a:7000', 'lists a:7000 twice'],
    ['a b:7000', '"a b:7000" is not one'],
  ])('refuses the malformed node list %j', (list, problem) => {
    expect(problemsOf({ REDIS_CLUSTER_NODES: list })).toEqual([
      expect.stringMatching(
        new RegExp(`^REDIS_CLUSTER_NODES .*${problem.replace(/[.*+?^${}()|[\]\\"]/g, '\\$&')}`),
      ),
    ]);
    expect(problemsOf({ REDIS_SENTINELS: list, REDIS_SENTINEL_MASTER: 'm' })[0]).toMatch(/^REDIS_SENTINELS /);
  });

  it('needs REDIS_SENTINEL_MASTER with REDIS_SENTINELS, and REDIS_SENTINELS with it', () => {
    expect(problemsOf({ REDIS_SENTINELS: 'a:26379' })).toEqual([
      'REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS (the name the sentinels monitor)',
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://a:6379', REDIS_SENTINEL_MASTER: 'm' })).toEqual([
      'REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS (the sentinels to ask for it)',
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'a:26379', REDIS_SENTINEL_MASTER: 'bad name!' })).toEqual([
      'REDIS_SENTINEL_MASTER must be 1 to 128 letters, digits, ., _ or -',
    ]);
  });

  it('refuses a REDIS_TLS that is not a boolean, and still reports a bad REDIS_URL alone', () => {
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_TLS: 'maybe' })).toEqual([
      'REDIS_TLS must be true or false',
    ]);
    expect(problemsOf({ REDIS_URL: 'http://a' })).toEqual([
      'REDIS_URL must be a URL starting with redis:// or rediss://',
    ]);
  });
});
