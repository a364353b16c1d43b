/**
 * Many streams open at once: `count` streamed chat requests started together against a slow
 * upstream stream (the mock sends 20 chunks 250 ms apart, so every stream stays open about 5 s and
 * all of them are open at the same time). Before them, `PROBES` streams opened one after the other
 * on the idle api (each once the previous one's first token came); once every one of the `count`
 * has its first token, `PROBES` more the same way while they are all still open, and `PROBES` more
 * once they all ended: the first token of a new stream alone (on the fresh api, and warm), and amid
 * the open ones. Measures the api's resident memory (VmRSS sampled every 50 ms, and the kernel's
 * peak VmHWM) and the first tokens, to show whether memory and the first token stay flat with
 * 1,000 open streams.
 */

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { median, percentileOfSorted, sortedFinite } from './stats.ts';

export interface ManyStreamsResult {
  readonly count: number;
  readonly ok: number;
  /** Streams that did not answer 200 or broke off, with their first failure. */
  readonly failed: number;
  readonly firstFailure: string | undefined;
  /** The api's resident memory before the streams opened, and the highest seen while they were open. */
  readonly rssBeforeMb: number;
  readonly rssPeakMb: number;
  /** Median time to first token of the streams opened one at a time on the idle api: fresh, and after the rest. */
  readonly aloneTtftMs: number;
  readonly aloneAfterTtftMs: number;
  /** The same while the `count` streams are open, and how many of them were still open then. */
  readonly amidTtftMs: number;
  readonly openAmid: number;
  /** Probe streams opened (alone or amid), those that did not answer 200 or broke off, the first failure. */
  readonly probes: number;
  readonly probesFailed: number;
  readonly firstProbeFailure: string | undefined;
  /** Time to first token of the `count` streams started together. */
  readonly ttftP50Ms: number;
  readonly ttftP99Ms: number;
  readonly ttftMaxMs: number;
  /** From the first request sent to the last stream's end. */
  readonly wallS: number;
}

interface StreamOutcome {
  readonly ok: boolean;
  readonly ttftMs: number;
  readonly failure?: string;
}

/** Resident memory of `pid` in MB (VmRSS, or VmHWM: the peak since the process started). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** A stream opened: its first token's time (NaN if none came) and its outcome at the end. */
interface OpenedStream {
  readonly firstToken: Promise<number>;
  readonly done: Promise<StreamOutcome>;
}

/** Streams opened one after the other on the idle api, each once the previous one's first token came. */
export const PROBES = 20;

function openStream(url: URL, key: string, model: string, agent: Agent): OpenedStream {
  let resolveFirst: (ms: number) => void = () => undefined;
  const firstToken = new Promise<number>((resolve) => {
    resolveFirst = resolve;
  });
  const done = requestStream(url, key, model, agent, (ms) => resolveFirst(ms));
  // A stream that ended without a byte of answer resolves its first token as NaN.
  void done.then((outcome) => resolveFirst(outcome.ttftMs));
  return { firstToken, done };
}

function requestStream(
  url: URL,
  key: string,
  model: string,
  agent: Agent,
  onFirstToken: (ms: number) => void,
): Promise<StreamOutcome> {
  const body = JSON.stringify({
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'hello' }],
  });
  const sent = performance.now();
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (res) => {
        let ttftMs = Number.NaN;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (Number.isNaN(ttftMs)) {
            ttftMs = performance.now() - sent;
            onFirstToken(ttftMs);
          }
          text += chunk;
        });
        res.on('end', () => {
          const ok = res.statusCode === 200 && text.endsWith('data: [DONE]\n\n') && !text.includes('"error"');
          resolve({ ok, ttftMs, ...(ok ? {} : { failure: `${res.statusCode}: ${text.slice(0, 200)}` }) });
        });
        res.on('error', (error) => resolve({ ok: false, ttftMs, failure: String(error) }));
      },
    );
    req.on('error', (error) => resolve({ ok: false, ttftMs: Number.NaN, failure: String(error) }));
    req.end(body);
  });
}

/** `PROBES` streams, each opened once the previous one's first token came; their first tokens. */
async function probeOneByOne(
  open: () => OpenedStream,
): Promise<{ ttfts: number[]; done: Promise<StreamOutcome[]> }> {
  const ttfts: number[] = [];
  const done: Promise<StreamOutcome>[] = [];
  for (let i = 0; i < PROBES; i += 1) {
    const stream = open();
    done.push(stream.done);
    ttfts.push(await stream.firstToken);
  }
  return { ttfts, done: Promise.all(done) };
}

/** Streams alone, then `count` at once and more amid them, against the gateway at `origin`; `pid`: the api's. */
export async function manyStreams(options: {
  readonly origin: string;
  readonly key: string;
  readonly model: string;
  readonly count: number;
  readonly pid: number;
}): Promise<ManyStreamsResult> {
  const url = new URL('/v1/chat/completions', options.origin);
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const open = () => openStream(url, options.key, options.model, agent);
  const alone = await probeOneByOne(open);
  await alone.done;
  const rssBeforeMb = memoryMb(options.pid, 'VmRSS');
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmRSS'));
  }, 50);
  const started = performance.now();
  const burst = Array.from({ length: options.count }, open);
  let ended = 0;
  for (const stream of burst) void stream.done.then(() => (ended += 1));
  await Promise.all(burst.map((stream) => stream.firstToken));
  const amid = await probeOneByOne(open);
  const openAmid = options.count - ended;
  const outcomes = await Promise.all(burst.map((stream) => stream.done));
  await amid.done;
  const wallS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmHWM'));
  const aloneAfter = await probeOneByOne(open);
  const probeFailures = [...(await alone.done), ...(await amid.done), ...(await aloneAfter.done)].filter(
    (o) => !o.ok,
  );
  agent.destroy();
  const ttfts = sortedFinite(outcomes.map((o) => o.ttftMs));
  const failures = outcomes.filter((o) => !o.ok);
  return {
    count: options.count,
    ok: outcomes.length - failures.length,
    failed: failures.length,
    firstFailure: failures[0]?.failure,
    rssBeforeMb,
    rssPeakMb,
    aloneTtftMs: median(alone.ttfts),
    aloneAfterTtftMs: median(aloneAfter.ttfts),
    amidTtftMs: median(amid.ttfts),
    openAmid,
    probes: 3 * PROBES,
    probesFailed: probeFailures.length,
    firstProbeFailure: probeFailures[0]?.failure,
    ttftP50Ms: percentileOfSorted(ttfts, 0.5),
    ttftP99Ms: percentileOfSorted(ttfts, 0.99),
    ttftMaxMs: ttfts.at(-1) ?? Number.NaN,
    wallS,
  };
}
