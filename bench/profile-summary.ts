/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and tells where the api's time went: by component
 * (each sample charged to the innermost frame that is project code or an npm package, so a socket
 * write counts for the driver that made it), the project's functions by self and inclusive time,
 * and the busiest functions of any origin. Given a window (the load's start and end on the
 * monotonic clock, which V8 stamps its samples with as Node's `process.hrtime` reads it), only the
 * samples inside it count: start-up (module loading, schema compilation) and shutdown stay out.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** µs on the monotonic clock. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Share {
  readonly name: string;
  readonly ms: number;
  /** Percent of the busy time (every sample but idle). */
  readonly pct: number;
}

/** A span of the monotonic clock, in µs (`process.hrtime.bigint() / 1000n`). */
export interface ProfileWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

export interface ProfileSummary {
  /** Whether only the window's samples were counted (false: the whole profile, start-up included). */
  readonly windowed: boolean;
  readonly totalMs: number;
  readonly busyMs: number;
  readonly byComponent: readonly Share[];
  readonly ownInclusive: readonly Share[];
  readonly topSelf: readonly Share[];
}

const OWN = 'project code';

export function summarizeProfile(
  file: string,
  root: string,
  window?: ProfileWindow,
  top = 12,
): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { inside, windowed } = sampleFilter(profile, window);
  const rootUrl = pathToFileURL(root.endsWith('/') ? root : `${root}/`).href;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const isOwn = (frame: CallFrame) => frame.url.startsWith(rootUrl) && !frame.url.includes('/node_modules/');
  const packageOf = (frame: CallFrame) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url)?.[1];
  const where = (frame: CallFrame) =>
    frame.url === '' ? '' : ` ${frame.url.replace(rootUrl, '').replace(/^.*\/node_modules\//, '')}`;
  const label = (frame: CallFrame) =>
    `${frame.functionName || '(anonymous)'}${where(frame)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  /** The innermost project or package frame of a stack; GC and native-only stacks by their name. */
  const componentOf = (leafId: number): string => {
    const leaf = byId.get(leafId)?.callFrame;
    const underRoot = byId.get(parent.get(leafId) ?? -1)?.callFrame.functionName ?? '(root)';
    if (leaf?.url === '' && leaf.functionName.startsWith('(') && underRoot === '(root)')
      return leaf.functionName;
    for (let at: number | undefined = leafId; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined) continue;
      if (isOwn(frame)) return OWN;
      const pkg = packageOf(frame);
      if (pkg !== undefined) return `npm: ${pkg}`;
    }
    return 'node internals (no project or package frame)';
  };

  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  const components = new Map<string, number>();
  const ownInclusive = new Map<string, number>();
  const anySelf = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(id);
    if (leaf === undefined || !inside(i)) return;
    totalMs += ms;
    if (leaf.callFrame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    add(components, componentOf(id), ms);
    add(anySelf, label(leaf.callFrame), ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame !== undefined && isOwn(frame)) seen.add(label(frame));
    }
    for (const name of seen) add(ownInclusive, name, ms);
  });
  const busyMs = totalMs - idleMs;
  const shares = (map: Map<string, number>, n = top): Share[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), pct: busyMs > 0 ? (100 * ms) / busyMs : 0 }));
  return {
    windowed,
    totalMs: Math.round(totalMs),
    busyMs: Math.round(busyMs),
    byComponent: shares(components, 20),
    ownInclusive: shares(ownInclusive),
    topSelf: shares(anySelf),
  };
}

/**
 * Which samples count: those stamped inside the window, or every one without a window (or when
 * none falls inside it, so that a clock mismatch shows as an unwindowed summary, not an empty one).
 */
function sampleFilter(
  profile: CpuProfile,
  window: ProfileWindow | undefined,
): { inside: (index: number) => boolean; windowed: boolean } {
  const all = { inside: () => true, windowed: false };
  if (window === undefined) return all;
  const stamps: number[] = [];
  let at = profile.startTime;
  for (const delta of profile.timeDeltas) {
    at += delta;
    stamps.push(at);
  }
  const within = (i: number) => (stamps[i] ?? 0) >= window.fromUs && (stamps[i] ?? 0) <= window.toUs;
  return stamps.some((_, i) => within(i)) ? { inside: within, windowed: true } : all;
}
