/**
 * The account holder's journey through the web console in a real browser (Debian's Chromium driven
 * by playwright-core) against a real listening gateway: invitation → password → sign-in → a key
 * created and copied → used with the official OpenAI SDK → the charge in the wallet, usage and
 * chart → the playground tried without a key → the key disabled in the console → the SDK gets 401 →
 * usage counted in billing days from a browser far from the billing zone. Then every holder page in English and
 * Persian (right-to-left, Persian calendar), at desktop and phone width, with screenshots under
 * test-output/screenshots/.
 */
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startOfDay } from '../../shared/src/billing/billing-time.ts';
import type { ListeningApp } from '../helpers/listening-app.ts';
import {
  eventually,
  type Lang,
  navTo,
  newContext,
  screenshot,
  settled,
  watchPageErrors,
} from './support/browser.ts';
import { useConsoleBrowser } from './support/console-browser.ts';
import { adminCall, invitationFor, PASSWORD, persianToday } from './support/gateway.ts';

const STEP_TIMEOUT = 120_000;

describe('web console: the account holder', { timeout: STEP_TIMEOUT }, () => {
  const session = useConsoleBrowser(
    {
      // A Google key (never used: no page here calls a Gemini model) lists the Gemini models, whose
      // prices include long-context rates.
      env: {
        DEMO_VIDEO_RENDER_MS: '1500',
        GOOGLE_API_KEY: 'unused-google-key',
        GOOGLE_BASE_URL: 'http://127.0.0.1:9',
      },
      lang: 'en',
      worker: true,
    },
    300_000,
  );
  let gateway: ListeningApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const email = `holder-${Date.now()}@example.test`;
  let accountId: string;
  let apiKey: string;
  let requestId: string;

  beforeAll(async () => {
    ({ gateway, browser, page, problems } = session);
    const account = await adminCall<{ id: string }>(gateway.origin, 'POST', '/accounts', { email });
    accountId = account.id;
    await adminCall(gateway.origin, 'POST', `/accounts/${accountId}/topups`, {
      amount: 50_000,
      reference: 'receipt-1',
    });
  });

  it('accepts the invitation: the holder sets a password and lands signed in on the overview', async () => {
    const link = await invitationFor(gateway.origin, accountId);
    expect(link).toMatch(/\/console\/invite#token=/);
    await page.goto(link);
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    // The token leaves the address bar at once.
    expect(page.url()).not.toContain('token=');
    await screenshot(page, 'en-invite');
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Repeat the password').fill('short');
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await page.getByText('The password needs at least 10 characters.').waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.getByTestId('balance').textContent()).toContain('50,000 Toman');
  });

  it('signs out and back in with the new password', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Wrong email or password').waitFor();
    await screenshot(page, 'en-sign-in-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('creates a key with its settings, shows it once and copies it', async () => {
    await navTo(page, 'Keys');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText('No keys yet').waitFor();
    await page.getByText('0 of 25 active keys.').waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name').fill('sdk test');
    await dialog.getByLabel('Rate limit').fill('120');
    await dialog.getByLabel('Limit what this key may spend each month').check();
    await dialog.getByLabel('Cap (Toman)').fill('20000');
    await screenshot(page, 'en-key-create');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: 'Your new key' });
    await created.getByText('It is shown only this once').waitFor();
    const shown = await created.getByTestId('created-key').inputValue();
    expect(shown).toMatch(/^hk-/);
    await created.getByRole('button', { name: 'Copy key' }).click();
    await created.getByText('Copied').waitFor();
    apiKey = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(apiKey).toBe(shown);
    await screenshot(page, 'en-key-created');
    await created.getByRole('button', { name: 'I have saved it' }).click();
    const card = page.getByTestId('key-card').filter({ hasText: 'sdk test' });
    await card.waitFor();
    expect(await card.textContent()).toContain(`hk-…${apiKey.slice(-4)}`);
    expect(await card.textContent()).toContain('120 per minute');
    expect(await card.textContent()).toContain('0 Toman of 20,000 Toman this month');
    // The full key is shown nowhere any more.
    expect(await page.content()).not.toContain(apiKey);
  });

  it('the copied key works with the official OpenAI SDK', async () => {
    const client = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'demo/chat', messages: [{ role: 'user', content: 'Hello from the console test' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    const service = (data as unknown as { service: { cost: number } }).service;
    expect(service.cost).toBeGreaterThan(0);
    requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).not.toBe('');
  });

  it('shows the charge in the wallet with its request id, and in usage and the overview chart', async () => {
    await navTo(page, 'Wallet');
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    const charge = page.getByTestId('ledger-table').locator('tr', { hasText: requestId });
    await eventually(() => charge.waitFor({ timeout: 1000 }), { between: () => page.reload() });
    expect(await charge.textContent()).toContain('Charge');
    expect(await charge.textContent()).toContain('demo/chat');
    const topUp = page.getByTestId('ledger-table').locator('tr', { hasText: 'receipt-1' });
    expect(await topUp.textContent()).toContain('+50,000');
    // A top-up made without a reference shows its entry id, not a blank line.
    await adminCall(gateway.origin, 'POST', `/accounts/${accountId}/topups`, { amount: 5, reference: '' });
    await page.reload();
    const unreferenced = page
      .getByTestId('ledger-table')
      .locator('tr[data-kind=topup]')
      .filter({ has: page.locator('code.reference', { hasText: `topup:${accountId}:` }) });
    await unreferenced.waitFor();
    expect(await unreferenced.textContent()).toContain('+5');
    await screenshot(page, 'en-wallet');

    await navTo(page, 'Usage');
    const row = page.getByTestId('usage-table').locator('tbody tr', { hasText: 'demo/chat' });
    await row.waitFor();
    expect(await page.getByTestId('usage-totals').textContent()).toContain('Requests1');
    await screenshot(page, 'en-usage');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await new Response((await download.createReadStream()) as unknown as ReadableStream).text();
    expect(csv.split('\r\n')[0]).toBe('date,model,requests,input_tokens,output_tokens,cost_irt');
    expect(csv).toContain(',demo/chat,1,');

    await navTo(page, 'Overview');
    await page.locator('canvas').waitFor();
    await page.getByText('Show as a table').click();
    const costs = await page.locator('.chart-table td.num').allTextContents();
    expect(costs.some((text) => text !== '0')).toBe(true);
    await page.getByText('Show as a table').click();
    const topKeys = page.getByRole('region', { name: 'Top keys this month' });
    expect(await topKeys.textContent()).toContain('sdk test');
    await screenshot(page, 'en-overview');
  });

  it('streams a chat in the playground without any key to paste, and shows its cost', async () => {
    // What the page receives, to check that no answer ever carries a full key.
    const answers: Promise<string>[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/console/api/')) answers.push(response.text().catch(() => ''));
    });
    await navTo(page, 'Playground');
    await page.getByTestId('playground-note').getByText('Console playground', { exact: false }).waitFor();
    expect(await page.locator('input[type=password]').count()).toBe(0);
    await page.getByLabel('Model').selectOption('demo/chat');
    await page.getByLabel('Message').fill('Say something');
    await page.getByRole('button', { name: 'Send' }).click();
    const cost = page.getByTestId('playground-cost');
    await cost.waitFor();
    expect(await cost.textContent()).toMatch(/Cost of this request: [\d.,]+ Toman/);
    expect(await page.getByTestId('chat-log').locator('.bubble-assistant').count()).toBe(1);
    await screenshot(page, 'en-playground');
    for (const text of await Promise.all(answers)) expect(text).not.toMatch(/hk-[0-9A-Za-z]{43}/);
    // The try was charged to the account through the console's key, listed with the keys.
    await navTo(page, 'Keys');
    const card = page.getByTestId('key-card').filter({ hasText: 'Console playground' });
    await card.getByText('does not count toward the 25').waitFor();
    await page.getByText('1 of 25 active keys.').waitFor();
    await screenshot(page, 'en-keys-playground');
    await navTo(page, 'Playground');
  });

  it('tries an image, speech and a video in the playground; the video is polled, played and listed in media', async () => {
    await page.getByRole('tab', { name: 'Image' }).click();
    await page.getByLabel('Prompt').fill('a small red square');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page
      .getByRole('img', { name: 'Generated image for: a small red square' })
      .waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('playground-cost').textContent()).toMatch(
      /Cost of this request: [\d.,]+ Toman/,
    );
    await screenshot(page, 'en-playground-image');

    await page.getByRole('tab', { name: 'Speech' }).click();
    await page.getByLabel('Text to speak').fill('Hello there');
    await page.getByRole('button', { name: 'Speak' }).click();
    await page.locator('audio.result-audio').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('playground-cost').textContent()).toMatch(/Cost of this request/);

    await page.getByRole('tab', { name: 'Video' }).click();
    await page.getByLabel('Prompt').fill('waves on a beach');
    await page.getByRole('button', { name: 'Render video' }).click();
    await page.locator('video.result-video').waitFor({ timeout: 60_000 });
    // The MP4 the console fetched (with the pasted key) plays: the browser reads its duration.
    const duration = await page.evaluate<number>(`new Promise((resolve) => {
      const video = document.querySelector('video.result-video');
      if (video.readyState >= 1) resolve(video.duration);
      else video.addEventListener('loadedmetadata', () => resolve(video.duration));
    })`);
    expect(duration).toBeGreaterThan(0);
    await page.getByTestId('playground-cost').waitFor();
    await screenshot(page, 'en-playground-video');

    await navTo(page, 'Media');
    const card = page.getByTestId('video-card').first();
    await card.getByText('Ready').waitFor();
    expect(await card.textContent()).toContain('demo/video');
    await card.locator('video').waitFor();
    await screenshot(page, 'en-media');
  });

  it('disables the key in the console, and the SDK then gets 401', async () => {
    await navTo(page, 'Keys');
    await page.getByRole('button', { name: 'Disable sdk test' }).click();
    const card = page.getByTestId('key-card').filter({ hasText: 'sdk test' });
    await card.getByText('Disabled').waitFor();
    await card.getByRole('button', { name: 'Enable sdk test' }).waitFor();
    await screenshot(page, 'en-keys');
    const client = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey, maxRetries: 0 });
    const error = await eventually(async () => {
      const failure = await client.chat.completions
        .create({ model: 'demo/chat', messages: [{ role: 'user', content: 'still there?' }] })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      if (failure === undefined) throw new Error('the disabled key still works');
      return failure;
    });
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
  });

  it('shows the remaining pages in English', async () => {
    await navTo(page, 'Models');
    await page.getByRole('heading', { name: 'Models', exact: true }).waitFor();
    await settled(page);
    await screenshot(page, 'en-models');
    await page.getByLabel('Search').fill('gemini-2.5-pro');
    await page.getByText(/^1 of \d+ models$/).waitFor();
    expect(await page.locator('td.price').first().textContent()).toMatch(
      /^input [\d,.]+ · output [\d,.]+ · cached [\d,.]+ per 1M tokens; prompts over 200,000 tokens: input [\d,.]+ · output [\d,.]+ · cached [\d,.]+$/,
    );
    await screenshot(page, 'en-models-long-context');
    await page.getByLabel('Search').fill('demo/');
    await page.getByText(/^8 of \d+ models$/).waitFor();
    await page.getByLabel('Type').selectOption('video');
    await page.getByText('1 of').waitFor();
    await navTo(page, 'Account');
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await screenshot(page, 'en-account');
  });

  it('switches to Persian: right-to-left, Persian digits and Persian-calendar dates, remembered', async () => {
    await page.getByRole('button', { name: 'فارسی' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('fa');
    await page.reload();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await navTo(page, 'کیف پول');
    await page.getByRole('heading', { name: 'کیف پول' }).waitFor();
    const ledger = await page.getByTestId('ledger-table').textContent();
    const today = persianToday();
    expect(ledger).toContain(today.year);
    expect(ledger).toContain(today.month);
    expect(ledger).toContain('۵۰٬۰۰۰');
    // No Gregorian year in the dates (the first column; request ids elsewhere are random and may hold "20..").
    const dates = await page.getByTestId('ledger-table').locator('tbody tr td:first-child').allTextContents();
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(date).not.toMatch(/20\d\d/);
    expect(await page.getByTestId('wallet-balance').textContent()).toContain('تومان');
    await screenshot(page, 'fa-wallet');
  });

  it('shows every holder page in Persian', async () => {
    for (const [link, name] of [
      ['خلاصه', 'fa-overview'],
      ['کلیدها', 'fa-keys'],
      ['مصرف', 'fa-usage'],
      ['مدل‌ها', 'fa-models'],
      ['آزمایشگاه', 'fa-playground'],
      ['رسانه‌ها', 'fa-media'],
      ['حساب', 'fa-account'],
    ] as const) {
      await navTo(page, link);
      await page
        .getByRole('heading', { name: link === 'کلیدها' ? 'کلیدهای API' : link, exact: true })
        .waitFor();
      await settled(page);
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      await screenshot(page, name);
    }
    await navTo(page, 'خلاصه');
    await page.locator('canvas').waitFor();
    const overview = await page.locator('main').textContent();
    expect(overview).toContain('تومان');
    expect(overview).toMatch(/[۰-۹]/);
  });

  it('works at 375 px wide in both languages without sideways scrolling', async () => {
    for (const lang of ['en', 'fa'] as Lang[]) {
      const phone = await newContext(browser, gateway.origin, lang, { width: 375, height: 812 });
      const mobile = await phone.newPage();
      const mobileProblems = watchPageErrors(mobile);
      await mobile.goto('/console/sign-in');
      await mobile.locator('input[type=email]').fill(email);
      await mobile.locator('input[type=password]').fill(PASSWORD);
      await mobile.locator('form button[type=submit]').click();
      await mobile.locator('[data-testid=balance]').waitFor();
      for (const path of ['overview', 'keys', 'usage', 'wallet', 'models', 'playground']) {
        await mobile.goto(`/console/${path}`);
        await mobile.locator('h1').waitFor();
        await settled(mobile);
        const overflow = await mobile.evaluate<number>(
          'document.documentElement.scrollWidth - window.innerWidth',
        );
        expect(overflow, `${lang} ${path} scrolls sideways`).toBeLessThanOrEqual(0);
        if (path !== 'usage') {
          await screenshot(mobile, `${lang}-mobile-${path}`);
        }
      }
      expect(mobileProblems).toEqual([]);
      await phone.close();
    }
  });

  it('counts usage in billing days: at 21:10 UTC, far west of Tehran, today is already tomorrow there', async () => {
    // 2030-03-10 21:10 UTC is 2030-03-11 00:40 in Tehran and 2030-03-10 14:10 in Los Angeles.
    await recordCharge(gateway, accountId, '2030-03-11', 40.8);
    const far = await newContext(browser, gateway.origin, 'en', undefined, 'America/Los_Angeles');
    const tab = await far.newPage();
    const tabProblems = watchPageErrors(tab);
    await tab.clock.setFixedTime(new Date('2030-03-10T21:10:00Z'));
    await tab.goto('/console/sign-in');
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('Password').fill(PASSWORD);
    await tab.getByRole('button', { name: 'Sign in', exact: true }).click();
    await tab.getByRole('heading', { name: 'Overview' }).waitFor();
    await tab.goto('/console/usage');
    expect(await tab.getByLabel('To', { exact: true }).inputValue()).toBe('2030-03-11');
    expect(await tab.getByLabel('From', { exact: true }).inputValue()).toBe('2030-02-10');
    const row = tab.getByTestId('usage-table').locator('tbody tr', { hasText: 'demo/chat' });
    await row.waitFor();
    expect(await row.textContent()).toContain('40.8');
    await screenshot(tab, 'en-usage-billing-day');
    await tab.getByRole('button', { name: 'Last 7 days' }).click();
    expect(await tab.getByLabel('From', { exact: true }).inputValue()).toBe('2030-03-05');
    await row.waitFor();
    await tab.getByRole('button', { name: 'فارسی' }).click();
    await expect.poll(() => tab.locator('html').getAttribute('dir')).toBe('rtl');
    await tab.getByTestId('usage-table').locator('tbody tr', { hasText: 'demo/chat' }).waitFor();
    await screenshot(tab, 'fa-usage-billing-day');
    expect(tabProblems).toEqual([]);
    await far.close();
  });

  it('deletes the session’s playground key when the holder signs out', async () => {
    const playgroundKeys = async () =>
      (
        await adminCall<{ data: { name: string }[] }>(gateway.origin, 'GET', `/accounts/${accountId}/keys`)
      ).data.filter((key) => key.name === 'Console playground');
    expect(await playgroundKeys()).toHaveLength(1);
    await page.getByRole('button', { name: 'خروج' }).click();
    await page.getByRole('heading', { name: 'ورود' }).waitFor();
    expect(await playgroundKeys()).toEqual([]);
  });

  it('logged no page error and no CSP violation', () => {
    expect(problems).toEqual([]);
  });
});

/** One charge of `demo/chat` on a given billing day, written as settlement writes it. */
async function recordCharge(gateway: ListeningApp, accountId: string, day: string, costIrt: number) {
  await gateway.connections.store.money.recordCharges([
    {
      id: `seed-${accountId}-${day}`,
      accountId,
      keyId: null,
      model: 'demo/chat',
      costMicros: BigInt(Math.round(costIrt * 1e6)),
      usage: { requests: 1, inputTokens: 12, outputTokens: 34 },
      day,
      month: day.slice(0, 7),
      createdAt: startOfDay(day, gateway.config.billing.timeZone),
    },
  ]);
}
