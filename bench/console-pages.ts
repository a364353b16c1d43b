/**
 * `npm run bench:console`: how long the web console's pages take to show with a year of usage rows
 * (the console's target: no page over 1 s on the local stack). A timed test on a shared machine
 * measures the machine, so the figure lives here, beside the other benchmarks, and the browser
 * tests only guard against a page whose cost grows with its rows.
 *
 * Starts its own Redis, s3rver and api on a fresh SQLite file (as `npm start` does, `MONGO_URL`
 * unset), builds the console when its build is missing or stale, opens an account through the
 * operator API, records a year of history for it as the browser tests do (`recordYearOfUsage`:
 * through the store's own contract), accepts the invitation in Chromium launched as the browser
 * tests launch it (`launchChromium`: Debian's `chromium`, no network beyond 127.0.0.1), then opens each page `ROUNDS` times and reports the best and the median, from
 * navigation to the page showing its data (no loading state left). Writes bench/CONSOLE-RESULTS.md
 * and stops what it started. Knobs (env): BENCH_CONSOLE_ROUNDS (5), CHROMIUM_PATH
 * (/usr/bin/chromium), SERVER_CPUS (1: the api's CPUs; the browser is left unpinned).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator } from 'playwright-core';
import { ensureConsoleBuilt } from '../infra/local-stack/build-console.ts';
import { openSqliteStore } from '../shared/src/store/sqlite/sqlite-store.ts';
import { CHROMIUM_PATH, launchChromium, newContext, settled } from '../test/browser/support/browser.ts';
import { PASSWORD } from '../test/browser/support/gateway.ts';
import { recordYearOfUsage } from '../test/browser/support/year-of-usage.ts';
import { adminClient } from './bench-accounts.ts';
import { startBenchApi } from './bench-api.ts';
import { runOwning } from './processes.ts';
import { machineLabel } from './run-labels.ts';
import { median } from './stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const ROUNDS = Number(env.BENCH_CONSOLE_ROUNDS ?? 5);
const TARGET_MS = 1_000;
/** The api's billing time zone, and the browser's (as in the browser tests). */
const TIME_ZONE = 'Asia/Tehran';

const log = (line: string) => process.stdout.write(`[bench:console] ${line}\n`);

interface PageTiming {
  readonly page: string;
  readonly runsMs: readonly number[];
}

async function main(): Promise<void> {
  // First, so that a missing Chromium stops the bench before it starts anything. The browser tests'
  // launch: its flags keep Chromium off the network beyond 127.0.0.1.
  const browser = await launchChromium();
  try {
    await benchAgainstStack(browser);
  } finally {
    await browser.close();
  }
}

async function benchAgainstStack(browser: Browser): Promise<void> {
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const scratch = join(ROOT, 'bench', 'results', `${stamp}-console`);
  mkdirSync(scratch, { recursive: true });
  await ensureConsoleBuilt({ repoRoot: ROOT, typecheck: false, log });

  const sqlitePath = join(scratch, 'gateway.db');
  const bench = await startBenchApi({
    root: ROOT,
    phase: 'console',
    sqlitePath,
    s3Dir: join(scratch, 's3'),
    bucket: 'bench-console',
    logDir: scratch,
    env: { BILLING_TIME_ZONE: TIME_ZONE },
    cpus: env.SERVER_CPUS ?? '1',
  });
  const { url } = bench;
  try {
    const admin = adminClient(url, bench.adminToken);
    const email = `year-${Date.now()}@bench.invalid`;
    const account = await admin<{ id: string }>('/accounts', { email, name: 'A year of usage' });
    await admin(
      `/accounts/${account.id}/topups`,
      { amount: 50_000_000, reference: 'bench' },
      { 'idempotency-key': `bench-console-${account.id}` },
    );
    const invitation = await admin<{ url: string }>(`/accounts/${account.id}/invitations`, {
      purpose: 'invite',
    });
    const charges = await seedYearOfUsage(sqlitePath, account.id);
    log(`${charges} charges recorded for ${account.id} over 365 days`);
    const timings = await measurePages(browser, url, invitation.url);
    writeResults({ started, timings, charges, sqlitePath });
  } finally {
    await bench.stop();
  }
}

/** The year of history, written to the api's SQLite file through the store's contract. */
async function seedYearOfUsage(sqlitePath: string, accountId: string): Promise<number> {
  const store = openSqliteStore({ path: sqlitePath, busyTimeoutMs: 5_000 });
  try {
    return await recordYearOfUsage(store.money, accountId, TIME_ZONE);
  } finally {
    await store.close();
  }
}

/** Accepts the invitation, then opens each page ROUNDS times (the first visit warms the caches). */
async function measurePages(browser: Browser, origin: string, invitation: string): Promise<PageTiming[]> {
  const context = await newContext(browser, origin, 'en');
  try {
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(invitation);
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // A page that loads one range first: switch to the range measured, then wait for its data.
    const showing = (choose: () => Promise<void>, shown: Locator) => async () => {
      await choose();
      await shown.waitFor();
      await settled(page);
    };
    const pages: [string, string, () => Promise<unknown>][] = [
      [
        'overview (90 days)',
        '/console/overview',
        showing(() => page.getByRole('radio', { name: '90 days' }).check(), page.locator('canvas')),
      ],
      [
        'usage (a year)',
        '/console/usage',
        showing(
          () => page.getByRole('button', { name: 'Last 365 days' }).click(),
          page.getByTestId('usage-table'),
        ),
      ],
      ['wallet', '/console/wallet', () => page.getByTestId('ledger-table').waitFor()],
      ['keys', '/console/keys', () => settled(page)],
    ];
    const timings: PageTiming[] = [];
    for (const [name, path, ready] of pages) {
      const runsMs: number[] = [];
      for (let run = 0; run < ROUNDS; run += 1) {
        const t0 = performance.now();
        await page.goto(path);
        await ready();
        runsMs.push(Math.round(performance.now() - t0));
      }
      timings.push({ page: name, runsMs });
      log(`${name}: ${runsMs.join(', ')} ms`);
    }
    return timings;
  } finally {
    await context.close();
  }
}

function writeResults(run: {
  started: Date;
  timings: readonly PageTiming[];
  charges: number;
  sqlitePath: string;
}): void {
  const rows = run.timings.map(({ page, runsMs }) => {
    const best = Math.min(...runsMs);
    const typical = median(runsMs.slice(1));
    const verdict = typical <= TARGET_MS ? '**met**' : '**not met**';
    return `| ${page} | ${runsMs[0]} | ${best} | ${typical} | ${verdict} |`;
  });
  const text = `# Benchmark: the web console's pages with a year of usage

Produced by \`npm run bench:console\` (\`bench/console-pages.ts\`), started ${run.started.toISOString()}.

- Machine: ${machineLabel()}; Chromium at \`${CHROMIUM_PATH}\` (playwright-core).
- Store: a fresh SQLite file (\`${relative(ROOT, run.sqlitePath)}\`, git-ignored), as under \`npm start\`; its own Redis and s3rver; the api pinned to CPU ${env.SERVER_CPUS ?? '1'}, the browser unpinned.
- Data: one account with ${run.charges} charges (four models on each of the last 365 billing days), recorded through the store's contract as settlement records them.
- Each page opened ${ROUNDS} times in one signed-in tab, from navigation until it shows its data with no loading state left (the overview switched to 90 days with its chart drawn; usage switched to the last 365 days with its table). The first visit is apart (cold caches); the target is judged on the median of the others.

| page | first visit ms | best ms | median ms (visits 2–${ROUNDS}) | no page over ${TARGET_MS} ms |
|---|---|---|---|---|
${rows.join('\n')}
`;
  writeFileSync(join(ROOT, 'bench', 'CONSOLE-RESULTS.md'), text);
  log('wrote bench/CONSOLE-RESULTS.md');
}

runOwning(main, { name: 'bench:console', timeLimitS: 900, log });
