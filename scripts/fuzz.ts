/**
 * `npm run fuzz`: the standing property-based fuzz run (docs/reliability.md, "Fuzz").
 *
 * Starts its own stores, the api and a worker (test/fuzz/stack.ts), makes the accounts, keys,
 * sessions and videos the generated requests refer to (test/fuzz/fixture.ts), sends a warm-up and
 * then FUZZ_REQUESTS generated requests (test/fuzz/requests.ts, runner.ts), samples the api's RSS
 * before, after and after idling, runs the ledger check with the api's environment, prints a
 * summary, writes the "Fuzz" section of docs/reliability.md and exits 1 if any property failed.
 *
 * Knobs (env): FUZZ_SEED (default 20250601), FUZZ_REQUESTS (10000), FUZZ_CONCURRENCY (32),
 * FUZZ_DEADLINE_MS (30000), FUZZ_WARMUP (2000), FUZZ_IDLE_MS (15000), FUZZ_TIME_LIMIT_S (1500),
 * FUZZ_ONLY (comma list of request indexes: replays only those, prints each request and answer,
 * writes no report), FUZZ_WRITE_DOC (1; 0 writes no report).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureConsoleBuilt } from '../infra/local-stack/build-console.ts';
import { createFixture, fixtureSecrets } from '../test/fuzz/fixture.ts';
import { KNOWN_FINDINGS } from '../test/fuzz/known-findings.ts';
import {
  type FuzzReport,
  markdownSection,
  rssWithin,
  summaryText,
  writeSection,
} from '../test/fuzz/report.ts';
import { describeRequest, passed, runRequests } from '../test/fuzz/runner.ts';
import { FUZZ_APP_ENV, REPO_ROOT, startFuzzStack } from '../test/fuzz/stack.ts';

const env = process.env;
const num = (name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, not ${JSON.stringify(value)}`);
  return n;
};

const settings = {
  seed: num('FUZZ_SEED', 20250601) | 0,
  requests: num('FUZZ_REQUESTS', 10_000),
  concurrency: num('FUZZ_CONCURRENCY', 32),
  deadlineMs: num('FUZZ_DEADLINE_MS', 30_000),
  warmup: num('FUZZ_WARMUP', 2_000),
  idleMs: num('FUZZ_IDLE_MS', 15_000),
  timeLimitMs: num('FUZZ_TIME_LIMIT_S', 1_500) * 1000,
  only: env.FUZZ_ONLY ? env.FUZZ_ONLY.split(',').map((s) => Number(s.trim())) : undefined,
  writeDoc: env.FUZZ_WRITE_DOC !== '0',
};
/** The warm-up draws from another seed, so it never repeats the measured requests. */
const WARMUP_SEED = settings.seed ^ 0x5a5a5a5a;

const log = (line: string) => process.stdout.write(`[fuzz] ${line}\n`);

async function ledgerCheck(appEnv: Readonly<Record<string, string>>): Promise<{ ok: boolean; text: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/ledger-check.ts')], {
    env: { PATH: env.PATH, ...appEnv, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const verdict =
    /ledger check: (.*)/.exec(out)?.[1] ?? `no verdict (exit ${code}): ${out.trim().slice(0, 300)}`;
  return { ok: code === 0 && verdict === 'consistent', text: verdict };
}

async function main(): Promise<number> {
  const began = Date.now();
  log(
    `seed ${settings.seed} (replay: FUZZ_SEED=${settings.seed}), ${settings.requests} requests, concurrency ${settings.concurrency}`,
  );
  // The console pages must exist, or /console/* answers its documented "not built" 503.
  await ensureConsoleBuilt({ repoRoot: REPO_ROOT, log: (line) => log(`console build: ${line}`) });
  const stack = await startFuzzStack();
  log(`api pid ${stack.api.child.pid} at ${stack.origin}, worker pid ${stack.worker.child.pid}`);
  try {
    const fixture = await createFixture(stack.origin, stack.adminToken);
    log(
      `fixture: ${fixture.goodKeys.length} funded keys, ${Object.keys(fixture.specialKeys).length} keys with settings, console sessions, videos`,
    );
    const common = {
      origin: stack.origin,
      fixture,
      concurrency: settings.concurrency,
      deadlineMs: settings.deadlineMs,
      timeLimitMs: settings.timeLimitMs,
      // Counterexamples name the reported finding they are; they still fail the run.
      known: KNOWN_FINDINGS,
    };

    if (settings.only !== undefined) {
      const stats = await runRequests({
        ...common,
        seed: settings.seed,
        count: settings.only.length,
        only: settings.only,
        onResult: (index, request, outcome, violations) => {
          const secrets = fixtureSecrets(fixture);
          const scrub = (text: string) =>
            secrets.reduce((out, secret) => out.split(secret).join('<secret>'), text);
          log(`#${index} ${describeRequest(request)}`);
          log(
            scrub(
              outcome.kind === 'answer'
                ? `  → ${outcome.answer.status} ${outcome.answer.body.subarray(0, 600).toString('utf8')}`
                : `  → no answer: ${outcome.reason}`,
            ),
          );
          for (const v of violations) log(scrub(`  ✗ ${v.property}: ${v.detail}`));
        },
      });
      return passed(stats) ? 0 : 1;
    }

    const warmup = await runRequests({ ...common, seed: WARMUP_SEED, count: settings.warmup });
    log(`warm-up: ${warmup.sent} requests in ${(warmup.durationMs / 1000).toFixed(1)} s`);
    await stack.collectApiGarbage();
    const rssStart = stack.apiRss();
    // RSS every 1,000 answers: tells a leak (growing all along) from a high-water mark (a plateau).
    const rssSamples: Array<readonly [number, number]> = [[0, rssStart]];
    let answered = 0;
    const run = await runRequests({
      ...common,
      seed: settings.seed,
      count: settings.requests,
      onResult: () => {
        answered += 1;
        if (answered % 1_000 === 0) rssSamples.push([answered, stack.apiRss()]);
      },
      onProgress: (s) =>
        log(
          `${s.sent}/${settings.requests} sent; 5xx ${s.fiveXx}, answerless ${s.answerless}, RSS ${(stack.apiRss() / 1048576).toFixed(0)} MB`,
        ),
    });
    const rssAfterRun = stack.apiRss();
    log(
      `run: ${run.sent} requests in ${(run.durationMs / 1000).toFixed(1)} s; idling ${settings.idleMs / 1000} s`,
    );
    await new Promise((resolve) => setTimeout(resolve, settings.idleMs));
    const rssAfterIdle = stack.apiRss();
    await stack.collectApiGarbage();
    const rssAfterGc = stack.apiRss();
    const ledger = await ledgerCheck(stack.env);
    const errorLines = stack.errorLines();
    for (const line of errorLines.slice(0, 20)) log(`error log: ${line.slice(0, 400)}`);

    const rss = {
      start: rssStart,
      afterRun: rssAfterRun,
      afterIdle: rssAfterIdle,
      afterGc: rssAfterGc,
      idleMs: settings.idleMs,
      samples: rssSamples,
    };
    const failures: string[] = [];
    if (run.sent < settings.requests)
      failures.push(`only ${run.sent} of ${settings.requests} requests sent (time limit)`);
    for (const stats of [warmup, run]) {
      const which = stats === warmup ? 'warm-up' : 'run';
      if (stats.fiveXx > 0) failures.push(`${stats.fiveXx} 5xx (${which})`);
      if (stats.answerless > 0) failures.push(`${stats.answerless} answerless (${which})`);
      if (stats.violations['well-formed'] > 0)
        failures.push(
          `${stats.violations['well-formed']} answers Node's HTTP client cannot parse (${which})`,
        );
      if (stats.violations.envelope > 0)
        failures.push(`${stats.violations.envelope} 4xx outside the envelope (${which})`);
      if (stats.violations['request-id'] > 0)
        failures.push(`${stats.violations['request-id']} errors without X-Request-Id (${which})`);
      if (stats.violations['stream-done'] > 0)
        failures.push(`${stats.violations['stream-done']} unfinished streams (${which})`);
    }
    if (!rssWithin(rss)) failures.push('api RSS after idle not within 20 % of its start');
    if (!ledger.ok) failures.push(`ledger check: ${ledger.text}`);
    const report: FuzzReport = {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      seed: settings.seed,
      concurrency: settings.concurrency,
      deadlineMs: settings.deadlineMs,
      warmup,
      run,
      rss,
      ledger: ledger.text,
      ledgerOk: ledger.ok,
      durationMs: Date.now() - began,
      appEnv: FUZZ_APP_ENV,
      errorLogLines: errorLines.length,
      failures,
    };
    process.stdout.write(`\n${summaryText(report)}\n`);
    for (const e of [...warmup.counterexamples, ...run.counterexamples].slice(0, 30)) {
      process.stdout.write(
        `\ncounterexample seed=${e.seed} index=${e.index} (${e.group}, ${e.transport})${e.known === undefined ? ' NOT A KNOWN FINDING' : ` [${e.known}]`}\n  request: ${e.request}\n  answer: ${e.answer}\n`,
      );
      for (const v of e.violations) process.stdout.write(`  ✗ ${v.property}: ${v.detail.slice(0, 300)}\n`);
    }
    if (settings.writeDoc) {
      const file = join(REPO_ROOT, 'docs/reliability.md');
      writeSection(file, markdownSection(report));
      log(`wrote the Fuzz section of ${file}`);
    }
    return failures.length === 0 ? 0 : 1;
  } finally {
    await stack.stop();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`fuzz run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
