/**
 * The lines `npm run bench` states, each against the floor proxy of the same run (the api's own
 * libraries, on the same machine, at the same moment), so that a line says what the gateway's own
 * work adds and not what the machine or the libraries cost. Pure: the report (./report.ts) gives
 * the figures, this says which lines are met.
 */
import { median } from './stats.ts';

/** The run's figures the lines compare; undefined where a phase was skipped or failed. */
export interface LineFigures {
  /** 0 ms upstream delay: requests per second. */
  readonly rps: { readonly gateway?: number; readonly portkey?: number; readonly floor?: number };
  /** 0 ms upstream delay: the gateway through 4 API channels (measured) beside the gateway (reference). */
  readonly channels?: SameRun;
  /** 0 ms upstream delay: the gateway (measured) beside the gateway with the request log off (reference). */
  readonly logOff?: SameRun;
  /** 0 ms upstream delay: CPU-ms per request of the api and of the floor. */
  readonly cpuMs: Pair;
  /** 50 ms upstream delay: p50 added to the mock called directly, ms. */
  readonly added50: Pair;
  /** Streams ten at a time: time to first token added to the mock's, p50, ms. */
  readonly addedTtft: Pair;
  /** Resident memory before 1,000 streams open (idle), and how much it grew to their peak, MB. */
  readonly idleMb: Pair;
  readonly growthMb: Pair;
}

/**
 * Two gateways measured in the same alternation: their median req/s, and each round's ratio
 * (measured / reference, both measured in that round, one beside the other, in turn first). The line is judged
 * on the median of those ratios: the machine's swings from round to round (this shared host's
 * rounds differ by up to 2 ×) fall on both sides of a ratio, not on the median of either side.
 */
export interface SameRun {
  readonly measured: number;
  readonly reference: number;
  readonly roundRatios: readonly number[];
}

interface Pair {
  readonly gateway?: number;
  readonly floor?: number;
}

export interface Line {
  readonly line: string;
  readonly gateway: string;
  readonly floor: string;
  /** undefined: a figure is missing. */
  readonly met: boolean | undefined;
  /** The section of the results whose profile explains a miss. */
  readonly explainedBy: string;
}

const n = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${n(x)}`;
const times = (k: number) => (x: number) => k * x;
const plus = (d: number) => (x: number) => x + d;
const cpuMs = (x: number) => `${x.toFixed(3)} ms`;
const addedMs = (x: number) => `${signed(x)} ms`;
const addedMb = (x: number) => `${signed(x)} MB`;
const PROFILE = 'CPU profile of the api';
const MEMORY = 'Memory with 1,000 streams open';

/** A line "the gateway's figure ≤ limit(the floor's)", shown with `show`. */
function atMost(
  line: string,
  explainedBy: string,
  pair: Pair,
  limit: (floor: number) => number,
  show: (x: number) => string,
): Line {
  const { gateway, floor } = pair;
  if (gateway === undefined || floor === undefined)
    return { line, gateway: 'n/a', floor: 'n/a', met: undefined, explainedBy };
  return { line, gateway: show(gateway), floor: show(floor), met: gateway <= limit(floor), explainedBy };
}

/** Every line, in the order of the results' table. */
export function benchLines(f: LineFigures): Line[] {
  const { gateway, portkey, floor } = f.rps;
  const known = gateway !== undefined && portkey !== undefined;
  return [
    {
      line: '0 ms upstream: gateway req/s ≥ 3 × Portkey’s',
      gateway: known ? `${n(gateway)} req/s = ${n(gateway / portkey)} × Portkey (${n(portkey)})` : 'n/a',
      floor: floor !== undefined && portkey !== undefined ? `${n(floor / portkey)} ×` : 'n/a',
      met: known ? gateway >= 3 * portkey : undefined,
      explainedBy: PROFILE,
    },
    sameRunLine('0 ms upstream: with 4 channels, req/s within 5 % of without channels', f.channels),
    sameRunLine('0 ms upstream: request log on, req/s within 5 % of log off', f.logOff),
    atMost('0 ms upstream: api CPU per request ≤ 2 × the floor’s', PROFILE, f.cpuMs, times(2), cpuMs),
    atMost('50 ms upstream: added p50 ≤ the floor’s + 1.5 ms', PROFILE, f.added50, plus(1.5), addedMs),
    atMost(
      'ten streams at a time: added TTFT p50 ≤ the floor’s + 1.5 ms',
      PROFILE,
      f.addedTtft,
      plus(1.5),
      addedMs,
    ),
    atMost('1,000 streams open: api RSS growth ≤ 1.3 × the floor’s', MEMORY, f.growthMb, times(1.3), addedMb),
    atMost('idle: api RSS ≤ the floor’s + 100 MB', MEMORY, f.idleMb, plus(100), (x) => `${n(x)} MB`),
  ];
}

/**
 * A line "this gateway's req/s ≥ 95 % of that one's", both measured in the same alternation:
 * judged on the median of the rounds' ratios (the upper middle one of an even count; the medians'
 * ratio when no round has both).
 */
function sameRunLine(line: string, run: SameRun | undefined): Line {
  if (run === undefined) return { line, gateway: 'n/a', floor: '–', met: undefined, explainedBy: PROFILE };
  const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
  const { measured, reference, roundRatios } = run;
  const ratio = roundRatios.length > 0 ? median(roundRatios) : measured / reference;
  const rounds =
    roundRatios.length > 0
      ? `${pct(ratio)}, the median of its rounds (${roundRatios.map(pct).join(', ')}); medians `
      : '';
  return {
    line,
    gateway: `${rounds}${n(measured)} req/s = ${pct(measured / reference)} of ${n(reference)}`,
    floor: '–',
    met: ratio >= 0.95,
    explainedBy: PROFILE,
  };
}

/** The lines as a Markdown table, a miss naming the section whose profile explains it. */
export function linesTable(lines: readonly Line[]): string {
  const verdict = (l: Line) =>
    l.met === undefined ? 'n/a' : l.met ? '**met**' : `**missed** (see "${l.explainedBy}")`;
  const rows = lines.map((l) => `| ${l.line} | ${l.gateway} | ${l.floor} | ${verdict(l)} |`);
  return ['| line | gateway | floor | verdict |', '|---|---|---|---|', ...rows].join('\n');
}
