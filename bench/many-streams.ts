/**
 * Many streams open at once: `count` streamed chat requests started together against a slow
 * upstream stream (the mock sends 20 chunks 250 ms apart, so every stream stays open about 5 s and
 * all of them are open at the same time), after one stream alone for the baseline. Measures the
 * api's resident memory (VmRSS sampled every 50 ms, and the kernel's peak VmHWM) and each stream's
 * time to first token, to show whether memory and the first token stay flat with 1,000 open streams.
 */

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

export interface ManyStreamsResult {
  readonly count: number;
  readonly ok: number;
  /** Streams that did not answer 200 or broke off, with their first failure. */
  readonly failed: number;
  readonly firstFailure: string | undefined;
  /** The api's resident memory before the streams opened, and the highest seen while they were open. */
  readonly rssBeforeMb: number;
  readonly rssPeakMb: number;
  /** Time to first token of the single stream run first, and of the `count` streams. */
  readonly aloneTtftMs: number;
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

function openStream(url: URL, key: string, model: string, agent: Agent): Promise<StreamOutcome> {
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
          if (Number.isNaN(ttftMs)) ttftMs = performance.now() - sent;
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

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs one stream alone, then `count` at once against the gateway at `origin`; `pid`: the api's. */
export async function manyStreams(options: {
  readonly origin: string;
  readonly key: string;
  readonly model: string;
  readonly count: number;
  readonly pid: number;
}): Promise<ManyStreamsResult> {
  const url = new URL('/v1/chat/completions', options.origin);
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const alone = await openStream(url, options.key, options.model, agent);
  const rssBeforeMb = memoryMb(options.pid, 'VmRSS');
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmRSS'));
  }, 50);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: options.count }, () => openStream(url, options.key, options.model, agent)),
  );
  const wallS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  rssPeakMb = Math.max(rssPeakMb, memoryMb(options.pid, 'VmHWM'));
  agent.destroy();
  const ttfts = outcomes
    .map((o) => o.ttftMs)
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b);
  const failures = outcomes.filter((o) => !o.ok);
  return {
    count: options.count,
    ok: outcomes.length - failures.length,
    failed: failures.length,
    firstFailure: failures[0]?.failure,
    rssBeforeMb,
    rssPeakMb,
    aloneTtftMs: alone.ttftMs,
    ttftP50Ms: percentile(ttfts, 50),
    ttftP99Ms: percentile(ttfts, 99),
    ttftMaxMs: ttfts.at(-1) ?? Number.NaN,
    wallS,
  };
}
