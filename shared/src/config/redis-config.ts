import {
  parseNodeList,
  REDIS_MODE_SETTING,
  type RedisNode,
  type RedisSettings,
} from '../redis/redis-settings.ts';

/** The variables this reads (their values already trimmed of "not set" empties). */
type RedisEnv = Readonly<Record<string, string | undefined>>;

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

/**
 * The Redis the process uses, from `REDIS_URL` (validated by the schema), `REDIS_CLUSTER_NODES`, or
 * `REDIS_SENTINELS` with `REDIS_SENTINEL_MASTER`, and for the last two `REDIS_USERNAME`,
 * `REDIS_PASSWORD`, `REDIS_SENTINEL_PASSWORD` and `REDIS_TLS`. Exactly one of the three is set;
 * otherwise, or when a list is malformed, pushes the problem and returns undefined.
 */
export function redisSettingsOf(env: RedisEnv, problems: string[]): RedisSettings | undefined {
  const set = (['single', 'cluster', 'sentinel'] as const).filter(
    (mode) => env[REDIS_MODE_SETTING[mode]] !== undefined,
  );
  if (set.length > 1) {
    const names = set.map((mode) => REDIS_MODE_SETTING[mode]);
    problems.push(
      `${names.join(' and ')} are both set: set exactly one of REDIS_URL (one node), REDIS_CLUSTER_NODES (a Cluster) or REDIS_SENTINELS (a Sentinel-managed primary)`,
    );
    return undefined;
  }
  const mode = set[0];
  if (mode !== 'sentinel' && env.REDIS_SENTINEL_MASTER !== undefined) {
    problems.push('REDIS_SENTINEL_MASTER is set without REDIS_SENTINELS (the sentinels to ask for it)');
  }
  if (mode === undefined) {
    problems.push(
      'REDIS_URL is required (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_MASTER)',
    );
    return undefined;
  }
  if (mode === 'single') return env.REDIS_URL === undefined ? undefined : { mode, url: env.REDIS_URL };
  const tls = flag(env.REDIS_TLS, problems);
  const auth = { username: env.REDIS_USERNAME, password: env.REDIS_PASSWORD, tls };
  if (mode === 'cluster') {
    const nodes = nodesOf('REDIS_CLUSTER_NODES', env.REDIS_CLUSTER_NODES, problems);
    return nodes === undefined ? undefined : { mode, nodes, ...auth };
  }
  const sentinels = nodesOf('REDIS_SENTINELS', env.REDIS_SENTINELS, problems);
  const masterName = env.REDIS_SENTINEL_MASTER?.trim();
  if (masterName === undefined || masterName === '') {
    problems.push('REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS (the name the sentinels monitor)');
    return undefined;
  }
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(masterName)) {
    problems.push('REDIS_SENTINEL_MASTER must be 1 to 128 letters, digits, ., _ or -');
    return undefined;
  }
  if (sentinels === undefined) return undefined;
  return { mode, sentinels, masterName, sentinelPassword: env.REDIS_SENTINEL_PASSWORD, ...auth };
}

function nodesOf(name: string, text: string | undefined, problems: string[]): RedisNode[] | undefined {
  const parsed = parseNodeList(text ?? '');
  if ('problem' in parsed) {
    problems.push(`${name} ${parsed.problem}`);
    return undefined;
  }
  return parsed.nodes;
}

function flag(text: string | undefined, problems: string[]): boolean {
  if (text === undefined) return false;
  const value = text.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (!FALSE.has(value)) problems.push('REDIS_TLS must be true or false');
  return false;
}
