/**
 * Loaded into the api or the floor proxy by the bench's stage-timing phase (`node --import <this
 * file> …`), without changing them: times three stages of each proxied request from Node's and
 * undici's diagnostics channels and appends one JSON line per request,
 * `[pre, send, upstream, post, arrivedAt]` in milliseconds (arrivedAt: since the epoch), to `$BENCH_STAGES_DIR/<role>-<pid>.jsonl`
 * (role: api or floor, from the entry script). Read by ./stage-timing.ts.
 *
 * - pre: from the request's headers parsed by the server (`http.server.request.start`) to its
 *   upstream request created (`undici:request:create`): body, key, validation, admission with its
 *   Redis round trip, and every wait for the event loop in between;
 * - send: from then to its headers written to a connection (`undici:client:sendHeaders`);
 * - upstream: from then to the upstream answer's headers read (`undici:request:headers`): the
 *   upstream's delay, and the waits for the CPU on both sides (the mock shares the api's CPU);
 * - post: from then to the answer's end (`http.server.response.finish`).
 *
 * The upstream request is tied to its server request through an AsyncLocalStorage entered when the
 * request starts, which costs every async step of the process a little: this phase runs apart from
 * the phases whose figures the tables report.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

interface Timing {
  readonly arrivedAt: number;
  createdAt?: number;
  sentAt?: number;
  headersAt?: number;
}

const dir = process.env.BENCH_STAGES_DIR;
const entry = process.argv[1] ?? '';
const role = /api[\\/]src[\\/]main\.ts$/.test(entry)
  ? 'api'
  : /floor-proxy\.ts$/.test(entry)
    ? 'floor'
    : undefined;

if (dir !== undefined && dir !== '' && role !== undefined) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${role}-${process.pid}.jsonl`);
  const current = new AsyncLocalStorage<Timing>();
  const ofRequest = new WeakMap<object, Timing>();
  const ofUpstream = new WeakMap<object, Timing>();
  let lines: string[] = [];
  const ms = (value: number) => Math.round(value * 1000) / 1000;

  subscribe('http.server.request.start', (message) => {
    const timing: Timing = { arrivedAt: performance.now() };
    ofRequest.set((message as { request: object }).request, timing);
    current.enterWith(timing);
  });
  subscribe('undici:request:create', (message) => {
    const timing = current.getStore();
    if (timing === undefined || timing.createdAt !== undefined) return;
    timing.createdAt = performance.now();
    ofUpstream.set((message as { request: object }).request, timing);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const timing = ofUpstream.get((message as { request: object }).request);
    if (timing !== undefined) timing.sentAt ??= performance.now();
  });
  subscribe('undici:request:headers', (message) => {
    const timing = ofUpstream.get((message as { request: object }).request);
    if (timing !== undefined) timing.headersAt ??= performance.now();
  });
  subscribe('http.server.response.finish', (message) => {
    const timing = ofRequest.get((message as { request: object }).request);
    if (timing?.createdAt === undefined || timing.sentAt === undefined || timing.headersAt === undefined)
      return;
    const { arrivedAt, createdAt, sentAt, headersAt } = timing;
    const now = performance.now();
    // The arrival on the wall clock, so that the rows of several processes compare.
    const arrived = performance.timeOrigin + arrivedAt;
    const row = [createdAt - arrivedAt, sentAt - createdAt, headersAt - sentAt, now - headersAt, arrived];
    lines.push(JSON.stringify(row.map(ms)));
  });

  const flush = () => {
    if (lines.length === 0) return;
    const written = lines;
    lines = [];
    try {
      appendFileSync(file, `${written.join('\n')}\n`);
    } catch {
      // The bench's scratch folder is gone: nothing to record into.
    }
  };
  setInterval(flush, 1_000).unref();
  process.on('exit', flush);
}
