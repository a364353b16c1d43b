/**
 * Loaded into the gateway's own processes by the bench (`node --import <this file> api/src/main.ts`,
 * or through NODE_OPTIONS for the local stack's children), without changing them: records the event
 * loop's delay with `perf_hooks.monitorEventLoopDelay` and appends one JSON line per second to
 * `$BENCH_LOOP_DELAY_DIR/<role>-<pid>.jsonl` (role: api or worker, from the entry script; any other
 * node process that inherits the variable records nothing). Read by ./loop-delay.ts.
 *
 * Cost: a native libuv timer every RESOLUTION_MS (no JavaScript runs for it) and one small file
 * append a second.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The timer's period: each recorded value is this period plus the delay. */
export const RESOLUTION_MS = 10;

const dir = process.env.BENCH_LOOP_DELAY_DIR;
const entry = process.argv[1] ?? '';
const role = /api[\\/]src[\\/]main\.ts$/.test(entry)
  ? 'api'
  : /workers[\\/]src[\\/]main\.ts$/.test(entry)
    ? 'worker'
    : undefined;

if (dir !== undefined && dir !== '' && role !== undefined) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${role}-${process.pid}.jsonl`);
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns: number) => ns / 1e6;
  const flush = () => {
    if (histogram.count === 0) return;
    const line = {
      t: Date.now(),
      n: histogram.count,
      mean: ms(histogram.mean),
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    };
    histogram.reset();
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // The bench's scratch folder is gone: nothing to record into.
    }
  };
  setInterval(flush, 1_000).unref();
  process.on('exit', flush);
}
