/**
 * The event-loop delay a gateway process recorded through ./loop-delay-preload.ts, summed up over
 * a time window (the load of a phase): per-second samples in, one line of figures out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOLUTION_MS } from './loop-delay-preload.ts';
import { median } from './stats.ts';

/** The preload, for `node --import <url>` or NODE_OPTIONS=--import=<url>. */
export const LOOP_DELAY_PRELOAD = new URL('./loop-delay-preload.ts', import.meta.url).href;
export const LOOP_DELAY_PRELOAD_PATH = fileURLToPath(LOOP_DELAY_PRELOAD);

interface Second {
  readonly t: number;
  readonly n: number;
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Delays in ms beyond the timer's own period (so 0 is a loop that was never late). */
export interface LoopDelay {
  readonly seconds: number;
  /** Sample-weighted mean. */
  readonly mean: number;
  /** Median over the seconds of each second's p50 and p99. */
  readonly p50: number;
  readonly p99: number;
  /** The worst second's p99, and the longest single delay. */
  readonly worstP99: number;
  readonly max: number;
}

/**
 * Reads `<dir>/<role>-*.jsonl` (every process of that role, e.g. several workers, pooled) and sums
 * up the seconds that ended within [fromMs, toMs]; null when none did.
 */
export function loopDelayOf(dir: string, role: string, fromMs: number, toMs: number): LoopDelay | null {
  if (!existsSync(dir)) return null;
  const seconds: Second[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${role}-`) || !name.endsWith('.jsonl')) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        const s = JSON.parse(line) as Second;
        // A second is recorded when it ends: the first one inside the window ends 1 s after it opens.
        if (s.t > fromMs + 1_000 && s.t <= toMs) seconds.push(s);
      } catch {
        // a line cut by a kill: skip it
      }
    }
  }
  if (seconds.length === 0) return null;
  const late = (ms: number) => Math.max(0, ms - RESOLUTION_MS);
  const samples = seconds.reduce((sum, s) => sum + s.n, 0);
  return {
    seconds: seconds.length,
    mean: late(seconds.reduce((sum, s) => sum + s.mean * s.n, 0) / Math.max(1, samples)),
    p50: late(median(seconds.map((s) => s.p50))),
    p99: late(median(seconds.map((s) => s.p99))),
    worstP99: late(Math.max(...seconds.map((s) => s.p99))),
    max: late(Math.max(...seconds.map((s) => s.max))),
  };
}

export function formatLoopDelay(d: LoopDelay | null | undefined): string {
  if (d === null || d === undefined) return 'n/a';
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  return `p50 ${f(d.p50)} / p99 ${f(d.p99)} / worst-second p99 ${f(d.worstP99)} / max ${f(d.max)} ms`;
}
