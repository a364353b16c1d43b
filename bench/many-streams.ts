/**
 * Many streams open at once: `count` streamed chat requests started together against a slow
 * upstream stream (the mock sends 20 chunks 250 ms apart, so every stream stays open about 5 s and
 * all of them are open at the same time), after `PROBES` streams opened one after the other on the
 * fresh process (each once the previous one's first token came). Measures the process's resident
 * memory before the burst (idle) and at its peak (VmRSS sampled every 50 ms, and the kernel's peak
 * VmHWM), what V8's heap holds of it at both moments, and the first tokens.
 */

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { type MemoryShare, memoryOf } from './memory.ts';
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
  /** What the memory was made of before the streams, and once all of them had their first token. */
  readonly memoryIdle: MemoryShare | null;
  readonly memoryAmid: MemoryShare | null;
  /** Median time to first token of the streams opened one at a time on the idle process. */
  readonly aloneTtftMs: number;
  /** Time to first token of the `count` streams started together. */
  readonly ttftP50Ms: number;
  readonly ttftP99Ms: number;
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

/** Streams opened one after the other on the fresh process, each once the previous one's first token came. */
const PROBES = 20;

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

/** Streams alone, then `count` at once, against the process at `origin` (pid `pid`). */
export async function manyStreams(options: {
  readonly origin: string;
  readonly key: string;
  readonly model: string;
  readonly count: number;
  readonly pid: number;
  /** Where the process writes its memory when asked (./memory-preload.ts). */
  readonly memoryDir: string;
}): Promise<ManyStreamsResult> {
  const url = new URL('/v1/chat/completions', options.origin);
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const open = () => openStream(url, options.key, options.model, agent);
  const alone: number[] = [];
  for (let i = 0; i < PROBES; i += 1) {
    const stream = open();
    alone.push(await stream.firstToken);
    await stream.done;
  }
  const memory = () => memoryOf(options.memoryDir, options.pid);
  const memoryIdle = await memory();
  const rssBeforeMb = memoryMb(options.pid, 'VmRSS');
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmRSS'));
  }, 50);
  const burst = Array.from({ length: options.count }, open);
  await Promise.all(burst.map((stream) => stream.firstToken));
  const memoryAmid = await memory();
  const outcomes = await Promise.all(burst.map((stream) => stream.done));
  clearInterval(sampler);
  rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmHWM'));
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
    memoryIdle,
    memoryAmid,
    aloneTtftMs: median(alone),
    ttftP50Ms: percentileOfSorted(ttfts, 0.5),
    ttftP99Ms: percentileOfSorted(ttfts, 0.99),
  };
}
