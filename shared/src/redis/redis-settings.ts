/**
 * Where the gateway's Redis is: one node (`REDIS_URL`), a Cluster (`REDIS_CLUSTER_NODES`, seeds) or a
 * Sentinel-managed primary (`REDIS_SENTINELS` with `REDIS_SENTINEL_MASTER`). Exactly one is set.
 */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface SingleRedis {
  readonly mode: 'single';
  /** `redis://` or `rediss://` (TLS), with its password and database in the URL. */
  readonly url: string;
}

/** What the Cluster's and the Sentinel-managed nodes share: ACL user, password, TLS. */
interface NodeAuth {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
}

export interface ClusterRedis extends NodeAuth {
  readonly mode: 'cluster';
  /** Seeds: the client learns the other nodes from them (CLUSTER SLOTS). */
  readonly nodes: readonly RedisNode[];
}

export interface SentinelRedis extends NodeAuth {
  readonly mode: 'sentinel';
  readonly sentinels: readonly RedisNode[];
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> …`). */
  readonly masterName: string;
  /** The sentinels' own password (`requirepass` of the sentinels), when they have one. */
  readonly sentinelPassword: string | undefined;
}

export type RedisSettings = SingleRedis | ClusterRedis | SentinelRedis;

/** The setting that names the Redis of each mode, for messages. */
export const REDIS_MODE_SETTING = {
  single: 'REDIS_URL',
  cluster: 'REDIS_CLUSTER_NODES',
  sentinel: 'REDIS_SENTINELS',
} as const satisfies Record<RedisSettings['mode'], string>;

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

/**
 * Parses `host:port,host:port,…` (IPv6 hosts in brackets). Returns the nodes, or the problem with
 * the first entry that is not one (for the start-up message).
 */
export function parseNodeList(text: string): { nodes: RedisNode[] } | { problem: string } {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) return { problem: 'must list at least one host:port' };
  const nodes: RedisNode[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry === '') return { problem: 'must be host:port pairs separated by commas (an entry is empty)' };
    const colon = entry.lastIndexOf(':');
    const host = colon > 0 ? entry.slice(0, colon) : '';
    const portText = colon > 0 ? entry.slice(colon + 1) : '';
    const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
    if (!HOST.test(host) || !(port >= 1 && port <= 65_535)) {
      return { problem: `must be host:port pairs separated by commas ("${entry}" is not one)` };
    }
    const unbracketed = host.startsWith('[') ? host.slice(1, -1) : host;
    if (seen.has(`${unbracketed}:${port}`)) return { problem: `lists ${entry} twice` };
    seen.add(`${unbracketed}:${port}`);
    nodes.push({ host: unbracketed, port });
  }
  return { nodes };
}

/** `host:port, …` for messages and logs (never a password). */
export function describeNodes(nodes: readonly RedisNode[]): string {
  return nodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(', ');
}

/** Where Redis is, for logs: the mode and its addresses, never a password. */
export function describeRedis(settings: RedisSettings): string {
  if (settings.mode === 'cluster') return `cluster (seeds ${describeNodes(settings.nodes)})`;
  if (settings.mode === 'sentinel') {
    return `sentinel (master "${settings.masterName}" via ${describeNodes(settings.sentinels)})`;
  }
  const url = new URL(settings.url);
  return `single (${url.protocol}//${url.host})`;
}
