/**
 * The operator's journey through the web console, in Persian (the browser's language): sign in
 * with the token → open an account (the answer shows its invitation link) → top it up with a
 * reference → the holder accepts the invitation and sees the new balance. Then the queues page
 * (failed jobs with their error, retry, discard), the same pages in English, and a year of usage
 * rows shown (each page's time printed). Screenshots under test-output/screenshots/.
 */
import { Queue, Worker } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../shared/src/redis/redis.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import type { ListeningApp } from '../helpers/listening-app.ts';
import { navTo, newContext, screenshot, settled, watchPageErrors } from './support/browser.ts';
import { useConsoleBrowser } from './support/console-browser.ts';
import { adminCall, PASSWORD, persianToday } from './support/gateway.ts';
import { recordYearOfUsage } from './support/year-of-usage.ts';

const STEP_TIMEOUT = 120_000;
const fa = (n: number) => new Intl.NumberFormat('fa-IR').format(n);

describe('web console: the operator', { timeout: STEP_TIMEOUT }, () => {
  const session = useConsoleBrowser({ lang: 'fa' }, 300_000);
  let gateway: ListeningApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const email = `invited-${Date.now()}@example.test`;
  let invitation: string;
  let accountUrl: string;

  beforeAll(() => {
    ({ gateway, browser, page, problems } = session);
  });

  it('opens in Persian from the browser language and signs the operator in with the token', async () => {
    await page.goto('/');
    await page.waitForURL('**/console/sign-in**');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('fa');
    await page.getByRole('heading', { name: 'ورود' }).waitFor();
    await screenshot(page, 'fa-sign-in');
    await page.getByRole('tab', { name: 'اپراتور' }).click();
    await page.getByLabel('توکن اپراتور').fill('not-the-token-at-all-0000000000');
    await page.getByRole('button', { name: 'ورود به عنوان اپراتور' }).click();
    await page.getByText('ایمیل یا گذرواژه (یا توکن اپراتور) نادرست است.').waitFor();
    await page.getByLabel('توکن اپراتور').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'ورود به عنوان اپراتور' }).click();
    await page.getByRole('heading', { name: 'حساب‌ها' }).waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
  });

  it('creates an account and shows its invitation link', async () => {
    await page.getByRole('button', { name: 'ساخت حساب' }).click();
    const dialog = page.getByRole('dialog', { name: 'ساخت حساب' });
    await dialog.getByLabel('ایمیل').fill(email);
    await dialog.getByLabel('نام (اختیاری)').fill('مشتری آزمایشی');
    await dialog.getByRole('button', { name: 'ساختن' }).click();
    const link = dialog.getByTestId('invitation-link');
    await link.waitFor();
    invitation = await link.inputValue();
    expect(invitation).toMatch(new RegExp(`^${gateway.origin}/console/invite#token=`));
    await screenshot(page, 'fa-operator-account-created');
    await dialog.getByRole('link', { name: 'باز کردن حساب' }).click();
    await page.getByRole('heading', { name: email }).waitFor();
    accountUrl = page.url();
  });

  it('tops the account up with a reference', async () => {
    await page.getByRole('button', { name: 'شارژ', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `شارژ ${email}` });
    await dialog.getByLabel('مبلغ (تومان)').fill('250000');
    await dialog.getByLabel('مرجع').fill('receipt-fa-1');
    await dialog.getByRole('button', { name: 'شارژ', exact: true }).click();
    await dialog.getByText(`انجام شد. موجودی اکنون ${fa(250_000)} تومان است.`).waitFor();
    await dialog.getByRole('button', { name: 'تمام' }).click();
    await page
      .getByTestId('account-balance')
      .getByText(`${fa(250_000)} تومان`)
      .waitFor();
    await page.getByRole('tab', { name: 'دفتر حساب' }).click();
    const row = page.getByTestId('ledger-table').locator('tr', { hasText: 'receipt-fa-1' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`+${fa(250_000)}`);
    expect(await row.textContent()).toContain(persianToday().year);
    await screenshot(page, 'fa-operator-account');
  });

  it('finds the account by search', async () => {
    await navTo(page, 'حساب‌ها');
    await page.getByLabel('جست‌وجوی حساب‌ها').fill(email.slice(0, 12));
    const row = page.getByTestId('accounts-table').locator('tbody tr', { hasText: email });
    await row.waitFor();
    expect(await row.textContent()).toContain(fa(250_000));
    await screenshot(page, 'fa-operator-accounts');
  });

  it('the holder accepts the invitation and sees the new balance', async () => {
    const holderContext = await newContext(browser, gateway.origin, 'fa');
    const holder = await holderContext.newPage();
    const holderProblems = watchPageErrors(holder);
    await holder.goto(invitation);
    await holder.getByRole('heading', { name: 'تعیین گذرواژه' }).waitFor();
    expect(await holder.locator('html').getAttribute('dir')).toBe('rtl');
    await screenshot(holder, 'fa-invite');
    await holder.getByLabel('گذرواژهٔ تازه').fill(PASSWORD);
    await holder.getByLabel('تکرار گذرواژه').fill(PASSWORD);
    await holder.getByRole('button', { name: 'ذخیرهٔ گذرواژه و ورود' }).click();
    await holder.getByRole('heading', { name: 'خلاصه' }).waitFor();
    expect(await holder.getByTestId('balance').textContent()).toContain(`${fa(250_000)} تومان`);
    // The link worked once: a second use is refused, in Persian.
    await holder.getByRole('button', { name: 'خروج' }).click();
    await holder.goto(invitation);
    await holder.getByLabel('گذرواژهٔ تازه').fill(PASSWORD);
    await holder.getByLabel('تکرار گذرواژه').fill(PASSWORD);
    await holder.getByRole('button', { name: 'ذخیرهٔ گذرواژه و ورود' }).click();
    await holder.getByText('این پیوند معتبر نیست').waitFor();
    expect(holderProblems).toEqual([]);
    await holderContext.close();
  });

  it('shows failed jobs with their error, and retries or discards them', async () => {
    const failed = await failTwoImageJobs(gateway);
    await navTo(page, 'صف‌ها');
    const table = page.getByTestId('queues-table');
    const image = table.locator('tbody tr', { hasText: 'image' });
    await image.waitFor();
    expect((await image.locator('td').allTextContents()).slice(0, 4)).toEqual([fa(0), fa(0), fa(0), fa(2)]);
    await image.getByRole('button', { name: 'کارهای ناموفق' }).click();
    const first = page.locator('.job', { hasText: failed[0] });
    await first.getByText('boom: the upstream said no', { exact: true }).waitFor();
    await screenshot(page, 'fa-operator-queues');
    await first.getByRole('button', { name: 'اجرای دوباره' }).click();
    await first.waitFor({ state: 'detached' });
    const second = page.locator('.job', { hasText: failed[1] });
    await second.getByRole('button', { name: 'کنار گذاشتن' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'کنار گذاشتن' }).click();
    await page.getByText('کار ناموفقی نیست.').waitFor();
    await page.getByRole('button', { name: 'به‌روزرسانی' }).click();
    // Polled: the row may still show the counts read after the retry (one waiting, one failed)
    // until the refreshed ones arrive.
    await expect
      .poll(async () => (await image.locator('td').allTextContents()).slice(0, 4), { timeout: 10_000 })
      .toEqual([fa(1), fa(0), fa(0), fa(0)]);
  });

  it('shows the operator pages in English too', async () => {
    await page.getByRole('button', { name: 'English' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    await settled(page);
    await screenshot(page, 'en-operator-queues');
    await navTo(page, 'Accounts');
    await settled(page);
    await screenshot(page, 'en-operator-accounts');
    await page.goto(accountUrl);
    await page.getByTestId('account-balance').getByText('250,000 Toman').waitFor();
    await page.getByRole('tab', { name: 'Ledger' }).click();
    await page.getByTestId('ledger-table').waitFor();
    await screenshot(page, 'en-operator-account');
  });

  it('shows a year of usage rows, each page ready within seconds', async () => {
    const holderContext = await newContext(browser, gateway.origin, 'en');
    const holder = await holderContext.newPage();
    await holder.goto('/console/sign-in');
    await holder.getByLabel('Email').fill(email);
    await holder.getByLabel('Password').fill(PASSWORD);
    await holder.getByRole('button', { name: 'Sign in', exact: true }).click();
    await holder.getByRole('heading', { name: 'Overview' }).waitFor();
    const accountId = decodeURIComponent(accountUrl.split('/').pop() ?? '');
    const rows = await recordYearOfUsage(
      gateway.connections.store.money,
      accountId,
      gateway.config.billing.timeZone,
    );
    expect(rows).toBeGreaterThanOrEqual(365 * 4);

    const timings: Record<string, number> = {};
    const measure = async (name: string, path: string, ready: () => Promise<unknown>) => {
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run += 1) {
        const started = Date.now();
        await holder.goto(path);
        await ready();
        best = Math.min(best, Date.now() - started);
      }
      timings[name] = best;
    };
    await measure('overview (90 days)', '/console/overview', async () => {
      await holder.getByRole('radio', { name: '90 days' }).check();
      await holder.locator('canvas').waitFor();
      await settled(holder);
    });
    await measure('usage (a year)', '/console/usage', async () => {
      await holder.getByRole('button', { name: 'Last 365 days' }).click();
      await holder.getByTestId('usage-table').waitFor();
      await settled(holder);
    });
    await measure('wallet', '/console/wallet', () => holder.getByTestId('ledger-table').waitFor());
    await measure('keys', '/console/keys', () => settled(holder));
    await holder.goto('/console/usage');
    await holder.getByRole('button', { name: 'Last 365 days' }).click();
    await holder.getByTestId('usage-table').waitFor();
    await settled(holder);
    await screenshot(holder, 'en-usage-year');
    await holder.goto('/console/overview');
    await holder.getByRole('radio', { name: '90 days' }).check();
    await holder.locator('canvas').waitFor();
    await screenshot(holder, 'en-overview-90-days');
    process.stdout.write(`[console pages, best of 3, ms] ${JSON.stringify(timings)}\n`);
    // Not the console's speed target, which `npm run bench:console` measures (bench/CONSOLE-RESULTS.md):
    // a timed test on a shared machine measures the machine (0.17–0.56 s for these pages alone,
    // 1.3 s for the overview beside the rest of the suite on a slow host); a page that takes longer
    // than this with a year of rows renders them in a way that grows with them.
    for (const [name, ms] of Object.entries(timings)) expect(ms, `${name} took ${ms} ms`).toBeLessThan(5_000);
    await holderContext.close();
  });

  it('credits a top-up once when its answer is lost and the operator sends it again with a double click', async () => {
    await page.goto(accountUrl);
    await page.getByTestId('account-balance').waitFor();
    const accountId = decodeURIComponent(accountUrl.split('/').pop() ?? '');
    const balance = async () =>
      (await adminCall<{ balance: number }>(gateway.origin, 'GET', `/accounts/${accountId}`)).balance;
    const before = await balance();
    const keys: (string | undefined)[] = [];
    // The first request reaches the gateway (which credits it), but its answer never reaches the
    // page; the next ones are held a moment, so a double click lands while one is in flight.
    await page.route('**/console/api/accounts/*/topups', async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (keys.length === 1) {
        await route.fetch();
        await route.abort('connectionreset');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Top up', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Top up ${email}` });
    await dialog.getByLabel('Amount (Toman)').fill('1000');
    await dialog.getByLabel('Reference').fill('receipt-en-retry');
    await dialog.getByRole('button', { name: 'Top up', exact: true }).click();
    await dialog.getByRole('alert').waitFor();
    // The one error this step provokes (the lost answer): every other stays for the last check.
    const reset = problems.findIndex((problem) => problem.includes('net::ERR_CONNECTION_RESET'));
    expect(reset).toBeGreaterThanOrEqual(0);
    problems.splice(reset, 1);
    await screenshot(page, 'en-operator-top-up-lost-answer');
    await dialog.getByRole('button', { name: 'Top up', exact: true }).dblclick();
    await dialog.getByText('Done. The balance is now', { exact: false }).waitFor();
    await screenshot(page, 'en-operator-top-up-retried');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.unroute('**/console/api/accounts/*/topups');
    // Every request of the submission carried the same key: one ledger entry, one credit.
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    await page.getByRole('tab', { name: 'Ledger' }).click();
    await page.getByTestId('ledger-table').locator('tr', { hasText: 'receipt-en-retry' }).first().waitFor();
    expect(
      await page.getByTestId('ledger-table').locator('tr', { hasText: 'receipt-en-retry' }).count(),
    ).toBe(1);
    expect(await balance()).toBeCloseTo(before + 1000, 6);
    await screenshot(page, 'en-operator-account-after-retry');
  });

  it('logged no page error and no CSP violation', () => {
    expect(problems).toEqual([]);
  });
});

/** Two image jobs that failed for good (a throwaway worker on the gateway's queue), newest first. */
async function failTwoImageJobs(gateway: ListeningApp): Promise<string[]> {
  const connection = createRedis(gateway.config.redis, { forBullmq: true });
  const prefix = gateway.config.queues.bullmqPrefix;
  const queue = new Queue('image', { connection, prefix });
  const ids = [`failing-${Date.now()}-a`, `failing-${Date.now()}-b`];
  for (const jobId of ids) await queue.add('image.generate', { jobId }, { jobId, attempts: 1 });
  const worker = new Worker(
    'image',
    async () => {
      throw new Error('boom: the upstream said no');
    },
    { connection: connection.duplicate(), prefix },
  );
  await new Promise<void>((resolve) => {
    let count = 0;
    worker.on('failed', () => {
      count += 1;
      if (count === ids.length) resolve();
    });
  });
  await worker.close();
  await queue.close();
  connection.disconnect();
  return ids;
}
