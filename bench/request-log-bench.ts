/**
 * `npm run bench:request-log [-- --records=N]`: the request log's SQLite store at scale
 * (docs/request-log.md). Generates N records (default 10,000,000: a year of a busy mix of
 * accounts, keys and models, 5 % errors) into a fresh file with the store's own write path, then
 * measures bytes per record on disk, lookup by id, filtered pages of 50 (by key, by model, errors
 * only, a date range), a retention pass over the oldest 1,000,000 rows (the longest the event
 * loop was blocked) and what a batch of the api's writer costs. Writes bench/REQUEST-LOG.md.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { RequestLogQuery } from '../shared/src/request-log/request-log-store.ts';
import { REQUEST_LOG_BATCH } from '../shared/src/request-log/request-log-writer.ts';
import { formatRequestId, type RequestRecord } from '../shared/src/request-log/request-record.ts';
import { runRetentionPass } from '../shared/src/request-log/retention.ts';
import { openSqliteRequestLog } from '../shared/src/store/sqlite/request-log.sqlite.ts';
import { sampleRecord } from '../test/helpers/request-records.ts';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
};
const RECORDS = arg('records', 10_000_000);
const RETAIN_DELETE = Math.min(arg('retention-rows', 1_000_000), Math.floor(RECORDS / 2));
const QUERIES = arg('queries', 300);
const BATCH = 20_000;
const YEAR_MS = 365 * 24 * 3600 * 1000;

/** A deterministic generator (xorshift), so two runs measure the same data. */
let seed = 0x9e3779b9;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4_294_967_296;
}
/** A Zipf-like pick of 0..n-1: a few busy accounts, a long tail. */
const skewed = (n: number) => Math.min(n - 1, Math.floor(n * random() ** 3));
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const ACCOUNTS = 2_000;
const KEYS_PER_ACCOUNT = 5;
const MODELS = [
  'openai/gpt-4o',
  'openai/gpt-4o-mini',
  'openai/gpt-5',
  'anthropic/claude-sonnet-4-5',
  'anthropic/claude-haiku-4-5',
  'google/gemini-2.5-flash',
  'google/gemini-2.5-pro',
  'deepseek/deepseek-chat',
  'mistral/mistral-small-latest',
  'xai/grok-4',
  'groq/llama-3.3-70b',
  'openai/text-embedding-3-small',
  'openai/gpt-image-1',
  'openai/tts-1',
];
const ENDPOINT_OF = (model: string) =>
  model.includes('embedding')
    ? 'embeddings'
    : model.includes('image')
      ? 'images'
      : model.includes('tts')
        ? 'speech'
        : 'chat';
const PATH_OF: Record<string, string> = {
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
};
const ERRORS: ReadonlyArray<readonly [number, string]> = [
  [429, 'rate_limit_exceeded'],
  [402, 'insufficient_quota'],
  [502, 'upstream_error'],
  [400, 'invalid_request_error'],
  [404, 'model_not_found'],
  [403, 'model_not_allowed'],
];

function keyOf(account: number, slot: number): string {
  return `key_${account.toString(36).padStart(4, '0')}${slot}`;
}

function makeRecord(ms: number): RequestRecord {
  const account = skewed(ACCOUNTS);
  const slot = Math.floor(random() * KEYS_PER_ACCOUNT);
  const model = MODELS[skewed(MODELS.length)] as string;
  const endpoint = ENDPOINT_OF(model);
  const failed = random() < 0.05;
  const [status, code] = failed ? pick(ERRORS) : [200, null];
  const stream = endpoint === 'chat' && random() < 0.5;
  const gone = !failed && random() < 0.005;
  const bytes = Buffer.alloc(12);
  for (let i = 0; i < 12; i += 1) bytes[i] = Math.floor(random() * 256);
  const input = failed ? 0 : Math.floor(50 + random() * 3000);
  const output = failed ? 0 : Math.floor(random() * 1500);
  return {
    id: formatRequestId(ms, bytes),
    createdMs: ms,
    accountId: `acc_${account.toString(36).padStart(6, '0')}`,
    keyId: keyOf(account, slot),
    keyLast4: `${slot}x${(account % 100).toString().padStart(2, '0')}`,
    method: 'POST',
    path: PATH_OF[endpoint] as string,
    endpoint,
    model,
    provider: model.split('/')[0] as string,
    channelId: null,
    attempts: failed && status === 502 ? 2 : 1,
    status,
    errorCode: code,
    outcome: failed ? 'failed' : gone ? 'client_gone' : 'completed',
    stream,
    inputTokens: input,
    outputTokens: output,
    cachedTokens: random() < 0.3 ? Math.floor(input / 2) : 0,
    reasoningTokens: random() < 0.1 ? Math.floor(output / 3) : 0,
    costMicros: failed ? 0n : BigInt(Math.floor(random() * 5_000_000)),
    latencyMs: Math.floor(100 + random() * 8_000),
    ttftMs: stream ? Math.floor(50 + random() * 900) : null,
    ip: `10.${account % 256}.${Math.floor(account / 256)}.${slot + 1}`,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function timed(runs: number, run: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? 0 };
}

const fmt = (ms: number) => ms.toFixed(2);

/** Records of the write-cost runs: two a millisecond, as an api answering 2,000 requests a second. */
const COST_RECORDS = 200_000;
/** The pause between two batches of a write-cost run (the api's are seconds apart). */
const COST_PAUSE_MS = 50;
/** The chat bench's mix (bench/RESULTS.md): 8 accounts of 25 keys, one model, every request answered. */
const CHAT_ACCOUNTS = 8;
const CHAT_KEYS_PER_ACCOUNT = 25;

/** A request of the chat bench's mix: one model, answered, unstreamed (the tests' sample record). */
function chatRecord(ms: number): RequestRecord {
  const account = Math.floor(random() * CHAT_ACCOUNTS);
  const slot = Math.floor(random() * CHAT_KEYS_PER_ACCOUNT);
  return sampleRecord(ms, {
    accountId: `acc_bench${account}`,
    keyId: `key_bench${account}_${slot}`,
    keyLast4: `${account}x${slot.toString().padStart(2, '0')}`,
    ip: '127.0.0.1',
  });
}

interface CostRun {
  readonly batch: number;
  /** `busy`: the scale mix (`makeRecord`); `chat`: the chat bench's (`chatRecord`). */
  readonly mix: 'busy' | 'chat';
  /** Through the write thread, as the api writes (`insertMany`), or on this thread (`insertNow`). */
  readonly thread: boolean;
}

/**
 * What a batch of the api's writer costs: `COST_RECORDS` records, two a millisecond, written in
 * batches of `batch` into a fresh file, `COST_PAUSE_MS` apart so the checkpointing keeps up as it
 * does behind an api: CPU of the process per record (every thread of it), the event loop's time per
 * record (a batch packed and handed to the write thread, or all of the write without one), and
 * how long a batch takes (with a thread, the time from handing it over to its commit).
 */
async function writeCost(folder: string, run: CostRun) {
  const { batch, mix, thread } = run;
  const store = openSqliteRequestLog({
    path: join(folder, `write-cost-${mix}-${batch}-${thread ? 'thread' : 'loop'}.db`),
    busyTimeoutMs: 5_000,
    writeThread: thread,
  });
  const make = mix === 'busy' ? makeRecord : chatRecord;
  const firstMs = Date.UTC(2026, 11, 1);
  const batches: RequestRecord[][] = [];
  for (let done = 0; done < COST_RECORDS; done += batch)
    batches.push(Array.from({ length: batch }, (_, i) => make(firstMs + Math.floor((done + i) / 2))));
  await store.insertMany(batches.shift() ?? []); // The statements prepared, the partition made.
  const cpu = process.cpuUsage();
  const times: number[] = [];
  let loopMs = 0;
  for (const records of batches) {
    await new Promise((resolve) => setTimeout(resolve, COST_PAUSE_MS));
    const t = performance.now();
    // Without a thread the whole write runs before `insertMany` returns (an async function's body
    // runs up to its first await), so the loop's time is all of it.
    const written = store.insertMany(records);
    loopMs += performance.now() - t;
    await written;
    times.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  const records = batches.length * batch;
  await store.close();
  times.sort((a, b) => a - b);
  const [medianMs, longestMs] = [percentile(times, 50), times.at(-1) ?? 0];
  return {
    ...run,
    cpuUs: (used.user + used.system) / records,
    loopUs: (loopMs * 1000) / records,
    medianMs,
    longestMs,
  };
}

/** The write-cost runs: the scale mix around the writer's batch, the chat bench's as the api writes. */
const COST_RUNS: readonly CostRun[] = [
  { batch: REQUEST_LOG_BATCH / 5, mix: 'busy', thread: false },
  { batch: REQUEST_LOG_BATCH / 2, mix: 'busy', thread: false },
  { batch: REQUEST_LOG_BATCH, mix: 'busy', thread: false },
  { batch: REQUEST_LOG_BATCH * 2, mix: 'busy', thread: false },
  { batch: REQUEST_LOG_BATCH / 5, mix: 'chat', thread: true },
  { batch: REQUEST_LOG_BATCH, mix: 'chat', thread: true },
];

async function main(): Promise<void> {
  const folder = mkdtempSync(join(os.tmpdir(), 'request-log-bench-'));
  const path = join(folder, 'requests.db');
  const store = openSqliteRequestLog({ path, busyTimeoutMs: 5_000 });
  const endMs = Date.UTC(2026, 10, 30);
  const startMs = endMs - YEAR_MS;
  const step = YEAR_MS / RECORDS;
  const sampleIds: string[] = [];
  const sampleKeys: string[] = [];
  const started = performance.now();
  let written = 0;
  console.log(`generating ${RECORDS.toLocaleString('en')} records into ${path}`);
  // The rows through the store's own write path, each partition's indexes in place, as the api writes.
  while (written < RECORDS) {
    const batch: RequestRecord[] = [];
    for (let i = 0; i < BATCH && written + i < RECORDS; i += 1) {
      const record = makeRecord(Math.floor(startMs + (written + i) * step));
      batch.push(record);
      if (random() < 2_000 / RECORDS) sampleIds.push(record.id);
      if (random() < 2_000 / RECORDS) sampleKeys.push(record.keyId);
    }
    store.insertNow(batch);
    written += batch.length;
    if (written % 1_000_000 === 0 || written === RECORDS)
      console.log(
        `  ${written.toLocaleString('en')} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
  }
  store.database.exec('ANALYZE');
  const generateSeconds = (performance.now() - started) / 1000;
  store.database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const bytes = statSync(path).size;
  const bytesPerRecord = bytes / RECORDS;
  const partitions = store.segments.length;
  console.log(`bytes/record ${bytesPerRecord.toFixed(1)}`);

  const byId = await timed(Math.min(QUERIES * 3, sampleIds.length), (i) =>
    store.findById(sampleIds[i] as string),
  );
  const page = (query: Omit<RequestLogQuery, 'limit'>) => store.list({ limit: 50, ...query });
  const byKey = await timed(QUERIES, (i) => page({ keyId: sampleKeys[i % sampleKeys.length] as string }));
  const byModel = await timed(QUERIES, () => page({ model: pick(MODELS) }));
  const errorsOnly = await timed(QUERIES, () => page({ status: { kind: 'error' } }));
  const accountErrors = await timed(QUERIES, (i) =>
    page({
      accountId: `acc_${skewed(ACCOUNTS).toString(36).padStart(6, '0')}`,
      status: { kind: 'error' },
      ...(i < 0 ? {} : {}),
    }),
  );
  const dateRange = await timed(QUERIES, () => {
    const from = startMs + Math.floor(random() * (YEAR_MS - 24 * 3600 * 1000));
    return page({ fromMs: from, beforeMs: from + 24 * 3600 * 1000 });
  });
  const keyInRange = await timed(QUERIES, (i) => {
    const from = startMs + Math.floor(random() * (YEAR_MS - 7 * 24 * 3600 * 1000));
    return page({
      keyId: sampleKeys[i % sampleKeys.length] as string,
      fromMs: from,
      beforeMs: from + 7 * 24 * 3600 * 1000,
    });
  });
  const nextPage = await timed(QUERIES, async (i) => {
    const first = await page({ model: MODELS[i % MODELS.length] as string });
    if (first.nextCursor !== null)
      await page({ model: MODELS[i % MODELS.length] as string, cursor: first.nextCursor });
  });

  // Retention: the oldest RETAIN_DELETE rows fall out of the window.
  const cutoffMs = Math.floor(startMs + RETAIN_DELETE * step);
  const retentionDays = (endMs - cutoffMs) / (24 * 3600 * 1000);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let longestStep = 0;
  const stepping = {
    kind: store.kind,
    retentionStep: async (beforeMs: number) => {
      const t = performance.now();
      const step = store.retentionStepNow(beforeMs);
      longestStep = Math.max(longestStep, performance.now() - t);
      return step;
    },
  };
  // The machine's own noise first: the event loop's longest delay over 5 s of doing nothing.
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  idle.disable();
  const idleMaxMs = idle.max / 1e6;
  delay.enable();
  const retentionStarted = performance.now();
  const deleted = await runRetentionPass(stepping as unknown as typeof store, {
    retentionDays,
    now: () => endMs,
  });
  const retentionSeconds = (performance.now() - retentionStarted) / 1000;
  delay.disable();
  const maxBlockMs = delay.max / 1e6;
  await store.close();
  const costs = [];
  for (const run of COST_RUNS) costs.push(await writeCost(folder, run));
  rmSync(folder, { recursive: true, force: true });

  const row = (name: string, t: { p50: number; p99: number; max: number }, bound: number) =>
    `| ${name} | ${fmt(t.p50)} | ${fmt(t.p99)} | ${fmt(t.max)} | ≤ ${bound} | ${t.p99 <= bound ? 'yes' : '**no**'} |`;
  const report = `# Request log at scale (SQLite)

The latest run of \`npm run bench:request-log\` (bench/request-log-bench.ts). A fresh SQLite file
(\`REQUEST_LOG_PATH\`'s schema) is filled by the store's own batch write with generated records:
a year of a busy mix (${ACCOUNTS.toLocaleString('en')} accounts with skewed traffic, ${KEYS_PER_ACCOUNT} keys each, ${MODELS.length} models, 5 % errors,
half the chats streamed), arriving in time order as the api writes them. Then ${QUERIES} queries of each kind
on the full file, and a retention pass dropping the partitions of the oldest ${RETAIN_DELETE.toLocaleString('en')} rows in its steps, with the event
loop's delay monitored throughout.

- Load: in batches of 20,000 through the store’s write path, each partition’s indexes in place, as the api writes; ${partitions} partitions (a table per UTC day) before retention.
- Records: **${RECORDS.toLocaleString('en')}**${RECORDS < 10_000_000 ? ' (fewer than the target ten million: `--records` was lowered for this machine)' : ''}; generated in ${generateSeconds.toFixed(0)} s
  (${Math.round(RECORDS / generateSeconds).toLocaleString('en')} records/s).
- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.

## Size

| | Value | Bound | Met |
|---|---|---|---|
| File (checkpointed) | ${(bytes / 1024 / 1024).toFixed(0)} MiB | | |
| Bytes per record | ${bytesPerRecord.toFixed(1)} | ≤ 200 | ${bytesPerRecord <= 200 ? 'yes' : '**no**'} |

## Reads (milliseconds)

| Query | p50 | p99 | max | p99 bound | Met |
|---|---|---|---|---|---|
${row('Lookup by id', byId, 5)}
${row('Page of 50 by key', byKey, 50)}
${row('Page of 50 by model', byModel, 50)}
${row('Page of 50, errors only (all accounts)', errorsOnly, 50)}
${row('Page of 50, an account’s errors', accountErrors, 50)}
${row('Page of 50, a one-day range', dateRange, 50)}
${row('Page of 50 by key in a week', keyInRange, 50)}
${row('Two pages by model (cursor)', nextPage, 100)}

## Retention

| | Value | Bound | Met |
|---|---|---|---|
| Rows deleted | ${deleted.toLocaleString('en')} | | |
| Pass | ${retentionSeconds.toFixed(1)} s | | |
| Longest delete step | ${fmt(longestStep)} ms | | |
| Longest event-loop block (monitorEventLoopDelay max) | ${fmt(maxBlockMs)} ms | ≤ 50 | ${maxBlockMs <= 50 ? 'yes' : '**no**'} |
| The same, 5 s of an idle loop before the pass (the machine’s own noise) | ${fmt(idleMaxMs)} ms | | |

## Write cost

${COST_RECORDS.toLocaleString('en')} records, two a millisecond (an api answering 2,000 requests a second), into a fresh file in batches, ${COST_PAUSE_MS} ms apart: CPU of the process per record (every thread: SQLite, the WAL's writes, the checkpointing), the event loop's share of it, and how long a batch takes, the median and the longest. The scale mix is written on the event loop's connection (\`insertNow\`: all of the time is the loop's); the chat bench's mix (${CHAT_ACCOUNTS} accounts of ${CHAT_KEYS_PER_ACCOUNT} keys, one model) as the api writes it, packed and handed to the write thread (\`insertMany\`: the loop's share is the packing, a batch's time runs from its handing over to its commit).

| Mix | Batch | CPU per record | Event loop per record | Median batch | Longest batch |
|---|---|---|---|---|---|
${costs.map((c) => `| ${c.mix === 'busy' ? `scale (${(ACCOUNTS * KEYS_PER_ACCOUNT).toLocaleString('en')} keys)` : `chat bench (${CHAT_ACCOUNTS * CHAT_KEYS_PER_ACCOUNT} keys), write thread`} | ${c.batch.toLocaleString('en')}${c.batch === REQUEST_LOG_BATCH ? ' (the writer’s)' : ''} | ${c.cpuUs.toFixed(1)} µs | ${c.loopUs.toFixed(1)} µs | ${fmt(c.medianMs)} ms | ${fmt(c.longestMs)} ms |`).join('\n')}

Load average at the end of the run: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} (${os.cpus().length} cores, shared with other work).

Not measured here: the chat bench's 0 ms line with the log on against off; \`npm run bench:chat\`
measures a gateway with \`REQUEST_LOG_ENABLED=false\` beside the default one (bench/RESULTS.md).
`;
  const out = fileURLToPath(new URL('./REQUEST-LOG.md', import.meta.url));
  writeFileSync(out, report);
  console.log(report);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
