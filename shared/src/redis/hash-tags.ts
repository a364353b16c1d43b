/**
 * Hash tags: a Cluster places a key by the part between its first `{` and the next `}` (when that
 * part is not empty), so keys with the same tag live in one slot and a script, a transaction or a
 * pipeline may touch them together. Every key the gateway touches with another in one call carries
 * a tag (docs/redis.md, "Key layout").
 */

/** `{value}`: the tag that puts keys in one slot. Values never hold braces (ids, names). */
export function hashTag(value: string): string {
  return `{${value}}`;
}

/** What places `key` in a Cluster: its tag when it has one, else the whole key (Redis's rule). */
export function slotPartOf(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** Groups items by the slot part of their key, each group in first-seen order. */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const part = slotPartOf(keyOf(item));
    const group = groups.get(part);
    if (group === undefined) groups.set(part, [item]);
    else group.push(item);
  }
  return [...groups.values()];
}

/**
 * The BullMQ prefix: on a Cluster, the queue prefix as a hash tag (`{gw}`, as BullMQ documents),
 * since each queue's scripts touch many of its keys at once; on one node or a Sentinel-managed
 * primary, the prefix as it is (`gw`), so key names and the KEDA triggers' lists stay as before.
 */
export function bullmqPrefixOf(queuePrefix: string, mode: 'single' | 'cluster' | 'sentinel'): string {
  return mode === 'cluster' ? hashTag(queuePrefix) : queuePrefix;
}
