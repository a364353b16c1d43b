/**
 * The stage timing an api or floor proxy recorded through ./stage-timing-preload.ts: one row per
 * proxied request in, the percentiles of each stage over the last seconds of its load out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentileOfSorted, sortedFinite } from './stats.ts';

/** The preload, for `node --import <path>`. */
export const STAGE_TIMING_PRELOAD = new URL('./stage-timing-preload.ts', import.meta.url).href;

/** Milliseconds. */
export interface StagePercentiles {
  readonly p10: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export interface StageTiming {
  readonly requests: number;
  readonly pre: StagePercentiles;
  readonly send: StagePercentiles;
  readonly upstream: StagePercentiles;
  readonly post: StagePercentiles;
  readonly total: StagePercentiles;
}

type Row = [pre: number, send: number, upstream: number, post: number, arrivedAt: number];

/**
 * Reads `<dir>/<role>-*.jsonl` and sums up the requests that arrived in the last `seconds` of the
 * recording (the measured segment; the warm-up before it is left out); null when there are none.
 */
export function stageTimingOf(dir: string, role: string, seconds: number): StageTiming | null {
  if (!existsSync(dir)) return null;
  const rows: Row[] = [];
  for (const name of readdirSync(dir).filter((file) => file.startsWith(`${role}-`))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line.trim() !== '') rows.push(JSON.parse(line) as Row);
    }
  }
  if (rows.length === 0) return null;
  const last = rows.reduce((latest, row) => Math.max(latest, row[4]), 0);
  const measured = rows.filter((row) => row[4] >= last - seconds * 1000);
  const of = (values: number[]): StagePercentiles => {
    const sorted = sortedFinite(values);
    return {
      p10: percentileOfSorted(sorted, 0.1),
      p50: percentileOfSorted(sorted, 0.5),
      p90: percentileOfSorted(sorted, 0.9),
      p99: percentileOfSorted(sorted, 0.99),
    };
  };
  return {
    requests: measured.length,
    pre: of(measured.map((row) => row[0])),
    send: of(measured.map((row) => row[1])),
    upstream: of(measured.map((row) => row[2])),
    post: of(measured.map((row) => row[3])),
    total: of(measured.map((row) => row[0] + row[1] + row[2] + row[3])),
  };
}

/** The stage-timing phase of a run, as kept in its info.json. */
export interface StagesRun {
  readonly delayMs: number;
  readonly seconds: number;
  readonly api: StageTiming | null;
  readonly floor: StageTiming | null;
}

/** The results file's section on the stage-timing phase. */
export function stageTimingSection(stages: StagesRun | undefined): string {
  let md = "\n## Where a request's time goes (stage timing)\n\n";
  if (stages === undefined) return `${md}Not run (BENCH_STAGE_SECONDS=0).\n`;
  md += `A phase of its own after the others, at ${stages.delayMs} ms upstream delay and 50 connections: a fresh api and a floor proxy of the phase's own, both started with \`bench/stage-timing-preload.ts\` (Node's and undici's diagnostics channels, the upstream request tied to its server request by an AsyncLocalStorage, which costs each request a little, so these figures are not those of the tables above), ${stages.seconds} s of load each after a warm-up. Per request, in ms: **pre**, from its headers parsed to its upstream request created (body, key, validation, admission and its Redis round trip, and every wait for the event loop between them); **send**, from then to its headers written to a connection; **upstream**, from then to the upstream answer's headers read (the ${stages.delayMs} ms delay, and the waits for the CPU on both sides: the mock runs on the api's CPU); **post**, from then to the answer's end.\n\n`;
  md +=
    '| target | requests | pre p50 / p90 / p99 | send p50 / p90 / p99 | upstream p50 / p90 / p99 | post p50 / p90 / p99 | total p50 / p90 | total p50 beyond the delay |\n|---|---|---|---|---|---|---|---|\n';
  const f = (x: number) => x.toFixed(2);
  const three = (p: StagePercentiles) => `${f(p.p50)} / ${f(p.p90)} / ${f(p.p99)}`;
  for (const [target, timing] of [
    ['gateway (api)', stages.api],
    ['floor', stages.floor],
  ] as const) {
    if (timing === null) {
      md += `| ${target} | none recorded | | | | | | |\n`;
      continue;
    }
    md += `| ${target} | ${timing.requests} | ${three(timing.pre)} | ${three(timing.send)} | ${three(timing.upstream)} | ${three(timing.post)} | ${f(timing.total.p50)} / ${f(timing.total.p90)} | +${f(timing.total.p50 - stages.delayMs)} |\n`;
  }
  return `${md}\n`;
}
