/**
 * Runs generated requests against a gateway with bounded concurrency and checks every answer
 * (check.ts). Requests are drawn with `fc.sample` from `requestArb` in chunks of `CHUNK` with
 * seeds derived from the run's seed, so request `i` of seed `s` is the same on every run: a
 * counterexample is replayed with `FUZZ_SEED=s FUZZ_ONLY=i npm run fuzz`.
 */
import fc from 'fast-check';
import { type CheckOptions, checkOutcome, type Property, type Violation } from './check.ts';
import { type FuzzFixture, fixtureSecrets, placeholderResolver } from './fixture.ts';
import { toJsonText } from './hostile.ts';
import { type KnownFinding, knownFindingOf } from './known-findings.ts';
import { type FuzzRequest, GROUPS, type Group, requestArb } from './requests.ts';
import { type Outcome, send, type Target, targetOf, toWire } from './send.ts';

export const CHUNK = 100;

/** The seed of chunk `chunk` of a run seeded `seed`. */
function chunkSeed(seed: number, chunk: number): number {
  return (Math.imul(chunk + 1, 0x9e3779b1) ^ seed) | 0;
}

/** Request `index` of the run seeded `seed`. */
export function requestAt(seed: number, index: number): FuzzRequest {
  const chunk = Math.floor(index / CHUNK);
  const sampled = fc.sample(requestArb, { seed: chunkSeed(seed, chunk), numRuns: CHUNK });
  return sampled[index % CHUNK] as FuzzRequest;
}

/** Requests `start` to `start + count - 1` of the run seeded `seed`, generated a chunk at a time. */
function* requestsOf(seed: number, start: number, count: number): Generator<[number, FuzzRequest]> {
  let chunk = -1;
  let sampled: FuzzRequest[] = [];
  for (let index = start; index < start + count; index += 1) {
    const wanted = Math.floor(index / CHUNK);
    if (wanted !== chunk) {
      chunk = wanted;
      sampled = fc.sample(requestArb, { seed: chunkSeed(seed, chunk), numRuns: CHUNK });
    }
    yield [index, sampled[index % CHUNK] as FuzzRequest];
  }
}

export interface Counterexample {
  readonly seed: number;
  readonly index: number;
  readonly group: Group;
  readonly transport: string;
  /** The request as generated (placeholders, never secrets), shortened. */
  readonly request: string;
  readonly answer: string;
  readonly violations: readonly Violation[];
  /** The id of the known finding (known-findings.ts) this is, if any. */
  readonly known?: string;
}

export interface GroupStats {
  sent: number;
  statuses: Record<string, number>;
}

export interface RunStats {
  readonly seed: number;
  sent: number;
  rawTransport: number;
  statuses: Record<string, number>;
  byGroup: Record<Group, GroupStats>;
  fiveXx: number;
  answerless: number;
  /** Streamed chat answers (200, text/event-stream): the stream path was reached this often. */
  streams: number;
  violations: Record<Property, number>;
  /** Requests that hit each known finding (known-findings.ts). */
  known: Record<string, number>;
  /** The first few counterexamples of each (group, method, status, property). */
  counterexamples: Counterexample[];
  /** How many failing requests each counterexample kind had. */
  kinds: Record<string, number>;
  durationMs: number;
  /** Slowest answers (ms), for the report. */
  maxMs: number;
  timedOut: boolean;
}

export interface RunOptions {
  readonly origin: string;
  readonly fixture: FuzzFixture;
  readonly seed: number;
  readonly count: number;
  readonly start?: number;
  /** Replay only these indexes. */
  readonly only?: readonly number[];
  readonly concurrency: number;
  readonly deadlineMs: number;
  readonly check?: Partial<CheckOptions>;
  /** Stop sending when this much time has passed (the run is then a failure). */
  readonly timeLimitMs?: number;
  readonly onProgress?: (stats: RunStats) => void;
  /** Called with every request and its outcome (replays print them). */
  readonly onResult?: (
    index: number,
    request: FuzzRequest,
    outcome: Outcome,
    violations: Violation[],
  ) => void;
  /** Findings already reported (known-findings.ts): counterexamples name the one they are. */
  readonly known?: readonly KnownFinding[];
  /**
   * Whether a violation that is a known finding still counts (default true: the full run reports
   * everything); false counts it in `known` only (the short test).
   */
  readonly knownAreFailures?: boolean;
}

const KEEP_PER_KIND = 3;

export function emptyStats(seed: number): RunStats {
  return {
    seed,
    sent: 0,
    rawTransport: 0,
    statuses: {},
    byGroup: Object.fromEntries(GROUPS.map((g) => [g, { sent: 0, statuses: {} }])) as Record<
      Group,
      GroupStats
    >,
    fiveXx: 0,
    answerless: 0,
    streams: 0,
    violations: {
      answered: 0,
      'well-formed': 0,
      'no-5xx': 0,
      envelope: 0,
      'request-id': 0,
      'stream-done': 0,
    },
    known: {},
    counterexamples: [],
    kinds: {},
    durationMs: 0,
    maxMs: 0,
    timedOut: false,
  };
}

/** A generated request as text for a report: placeholders kept, long values cut. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string, n: number) =>
    text.length > n ? `${text.slice(0, n)}…(${text.length} chars)` : text;
  if (request.kind === 'raw') return `raw "${request.name}": ${JSON.stringify(cut(request.text, 300))}`;
  const headers = request.headers.map(([n, v]) => `${cut(n, 40)}: ${cut(v, 80)}`).join(' | ');
  let body = '';
  if (request.body !== undefined) {
    const b = request.body;
    const text =
      b.type === 'json'
        ? toJsonText(b.value)
        : b.type === 'text'
          ? JSON.stringify(b.text)
          : b.type === 'bytes'
            ? `hex ${b.hex}`
            : `multipart boundary=${JSON.stringify(b.boundary)} keep=${b.keep} unterminated=${b.unterminated} parts=${JSON.stringify(b.parts.map((p) => ({ ...p, content: p.content.type === 'text' ? { type: 'text', text: cut(p.content.text, 60) } : p.content })))}`;
    body = ` body(${b.type}): ${cut(text, 300)}`;
  }
  return `${request.method} ${cut(request.path, 200)} [framing ${request.framing}] headers: ${headers || '(none)'}${body}`;
}

function describeOutcome(outcome: Outcome, secrets: readonly string[]): string {
  if (outcome.kind === 'answerless')
    return scrub(`no answer after ${outcome.ms} ms: ${outcome.reason}`, secrets);
  const { answer } = outcome;
  let body = answer.body.subarray(0, 400).toString('utf8');
  for (const secret of secrets) body = body.split(secret).join('<secret>');
  return `${answer.status} (${answer.headers['content-type'] ?? 'no content-type'}, ${outcome.ms} ms) ${body}`;
}

/** Sends the requests with at most `concurrency` in flight, checking each answer; never throws on a failure. */
export async function runRequests(options: RunOptions): Promise<RunStats> {
  const started = Date.now();
  const stats = emptyStats(options.seed);
  const target: Target = targetOf(options.origin, options.concurrency);
  const host = `${target.hostname}:${target.port}`;
  const resolve = placeholderResolver(options.fixture, host);
  const secrets = fixtureSecrets(options.fixture);
  const checkOptions: CheckOptions = { consolePagesMayBeUnbuilt: false, ...options.check };
  const source: Iterator<[number, FuzzRequest]> =
    options.only === undefined
      ? requestsOf(options.seed, options.start ?? 0, options.count)
      : options.only.map((i): [number, FuzzRequest] => [i, requestAt(options.seed, i)])[Symbol.iterator]();
  let lastProgress = Date.now();

  const one = async (index: number, request: FuzzRequest) => {
    const wire = toWire(request, resolve);
    const outcome = await send(target, wire, options.deadlineMs);
    const found = checkOutcome(wire, outcome, checkOptions);
    const knownIds = new Set<string>();
    const violations = found.filter((v) => {
      const finding = knownFindingOf(options.known ?? [], request, wire, outcome, v);
      if (finding !== undefined) knownIds.add(finding.id);
      return finding === undefined || options.knownAreFailures !== false;
    });
    for (const id of knownIds) stats.known[id] = (stats.known[id] ?? 0) + 1;
    stats.sent += 1;
    if (wire.transport === 'raw') stats.rawTransport += 1;
    const status =
      outcome.kind === 'answer'
        ? String(outcome.answer.status)
        : outcome.malformed === true
          ? 'malformed'
          : 'none';
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    const group = stats.byGroup[request.group];
    group.sent += 1;
    group.statuses[status] = (group.statuses[status] ?? 0) + 1;
    stats.maxMs = Math.max(stats.maxMs, outcome.ms);
    if (
      outcome.kind === 'answer' &&
      outcome.answer.headers['content-type']?.startsWith('text/event-stream') === true
    )
      stats.streams += 1;
    if (violations.some((v) => v.property === 'no-5xx')) stats.fiveXx += 1;
    if (violations.some((v) => v.property === 'answered')) stats.answerless += 1;
    for (const v of violations) stats.violations[v.property] += 1;
    if (found.length > 0) {
      const known = [...knownIds][0];
      const kind = `${request.group} ${wire.method} ${status} ${found.map((v) => v.property).join('+')}${known === undefined ? '' : ` [${known}]`}`;
      stats.kinds[kind] = (stats.kinds[kind] ?? 0) + 1;
      if ((stats.kinds[kind] ?? 0) <= KEEP_PER_KIND) {
        stats.counterexamples.push({
          seed: options.seed,
          index,
          group: request.group,
          transport: wire.transport,
          request: describeRequest(request),
          answer: describeOutcome(outcome, secrets),
          violations: found.map((v) => ({ ...v, detail: scrub(v.detail, secrets) })),
          ...(known === undefined ? {} : { known }),
        });
      }
    }
    options.onResult?.(index, request, outcome, violations);
    if (options.onProgress !== undefined && Date.now() - lastProgress > 5_000) {
      lastProgress = Date.now();
      options.onProgress(stats);
    }
  };

  const worker = async () => {
    for (;;) {
      if (options.timeLimitMs !== undefined && Date.now() - started > options.timeLimitMs) {
        stats.timedOut = true;
        return;
      }
      const next = source.next();
      if (next.done === true) return;
      const [index, request] = next.value;
      await one(index, request);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  target.agent.destroy();
  stats.durationMs = Date.now() - started;
  return stats;
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('<secret>');
  return out;
}

/** Whether the run met every property. */
export function passed(stats: RunStats): boolean {
  return !stats.timedOut && Object.values(stats.violations).every((n) => n === 0);
}
