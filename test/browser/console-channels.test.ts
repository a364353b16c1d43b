/**
 * The operator's channels page in the web console, in Persian (the browser's language) and English:
 * the environment channel is listed read-only; a channel is created (its credential never shown
 * again), tested against a fake upstream, edited with the credential field left empty (the stored
 * one is kept), disabled, and deleted, the force offered while a render is in flight. Desktop and
 * 375 px, without sideways scrolling. Screenshots under screenshots/36/.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_KEY, type OpenAIUpstream, startOpenAIUpstream } from '../fakes/openai-upstream.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import type { ListeningApp } from '../helpers/listening-app.ts';
import { JOB_REQUESTS, newJobId } from '../helpers/media-job-fixture.ts';
import { type Lang, navTo, newContext, settled, watchPageErrors } from './support/browser.ts';
import { useConsoleBrowser } from './support/console-browser.ts';
import { adminCall } from './support/gateway.ts';

const STEP_TIMEOUT = 120_000;
const SHOTS = join(import.meta.dirname, '..', '..', 'screenshots', '36');
const CHANNEL_KEY = `sk-console-${randomBytes(10).toString('hex')}`;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

let fake: OpenAIUpstream;
beforeAll(async () => {
  fake = await startOpenAIUpstream({ apiKey: CHANNEL_KEY });
  process.env.CHANNELS_TEST_FAKE_URL = fake.url;
});
afterAll(() => fake?.close());

describe('web console: channels', { timeout: STEP_TIMEOUT }, () => {
  const session = useConsoleBrowser(
    {
      lang: 'fa',
      env: {
        CHANNEL_SECRET_KEY: randomBytes(32).toString('base64'),
        OPENAI_API_KEY: DEFAULT_FAKE_KEY,
        // The fake starts in this file's beforeAll, which runs before the session's.
        get OPENAI_BASE_URL() {
          return process.env.CHANNELS_TEST_FAKE_URL ?? '';
        },
      } as Record<string, string>,
    },
    300_000,
  );
  let gateway: ListeningApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(() => {
    ({ gateway, browser, page, problems } = session);
  });

  async function signIn(tab: Page, lang: Lang) {
    await tab.goto('/console/sign-in');
    const words =
      lang === 'fa'
        ? { tab: 'اپراتور', token: 'توکن اپراتور', submit: 'ورود به عنوان اپراتور', home: 'حساب‌ها' }
        : { tab: 'Operator', token: 'Operator token', submit: 'Sign in as operator', home: 'Accounts' };
    await tab.getByRole('tab', { name: words.tab }).click();
    await tab.getByLabel(words.token).fill(TEST_ADMIN_TOKEN);
    await tab.getByRole('button', { name: words.submit }).click();
    await tab.getByRole('heading', { name: words.home }).waitFor();
  }

  it('lists the environment channel, read-only, in Persian', async () => {
    await signIn(page, 'fa');
    await navTo(page, 'کانال‌ها');
    await page.getByRole('heading', { name: 'کانال‌ها' }).waitFor();
    await settled(page);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    const row = page.getByTestId('channel-openai-environment');
    await row.getByText('سالم').waitFor();
    await row.getByText('از متغیرهای محیطی (فقط خواندنی)').waitFor();
    expect(await row.getByRole('button', { name: 'حذف' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain(DEFAULT_FAKE_KEY);
  });

  it('creates a channel, whose credential is never shown again, and tests it', async () => {
    await page.getByTestId('channel-new').click();
    const dialog = page.getByRole('dialog', { name: 'کانال تازه' });
    await dialog.getByLabel('نام', { exact: true }).fill('openai-primary');
    await dialog.getByLabel('اعتبارنامه (کلید API)').fill(CHANNEL_KEY);
    await dialog.getByLabel('وزن', { exact: true }).fill('3');
    await dialog.getByLabel('مدل‌ها').fill('openai/gpt-5-nano');
    await shot(page, 'fa-desktop-channel-form');
    await dialog.getByRole('button', { name: 'ذخیره' }).click();
    const row = page.getByTestId('channel-openai-primary');
    await row.waitFor();
    expect(await page.content()).not.toContain(CHANNEL_KEY);
    await row.getByText(`••••${CHANNEL_KEY.slice(-4)}`).waitFor();
    await row.getByRole('button', { name: 'آزمون' }).click();
    await row.getByTestId('channel-test-result').getByText('موفق بود', { exact: false }).waitFor();
    await shot(page, 'fa-desktop-channels');
  });

  it('edits with the credential left empty (kept), disables, and enables again', async () => {
    const row = page.getByTestId('channel-openai-primary');
    await row.getByRole('button', { name: 'ویرایش' }).click();
    const dialog = page.getByRole('dialog', { name: 'ویرایش' });
    await dialog.getByLabel('وزن', { exact: true }).fill('7');
    await dialog.getByRole('button', { name: 'ذخیره' }).click();
    // The weight's cell ("weight / priority"); the earlier test's latency may hold a ۷ too.
    await row.getByRole('cell', { name: /^۷ \/ / }).waitFor();
    const list = await adminCall<{ data: Array<{ name: string; key_last4: string; weight: number }> }>(
      gateway.origin,
      'GET',
      '/channels',
    );
    expect(list.data.find((c) => c.name === 'openai-primary')).toMatchObject({
      weight: 7,
      key_last4: CHANNEL_KEY.slice(-4),
    });
    await row.getByRole('button', { name: 'غیرفعال کردن' }).click();
    await row.getByText('غیرفعال', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'فعال کردن' }).click();
    await row.getByText('سالم').waitFor();
  });

  it('deletes, offering the force while a render is in flight', async () => {
    const list = await adminCall<{ data: Array<{ id: string; name: string }> }>(
      gateway.origin,
      'GET',
      '/channels',
    );
    const channelId = list.data.find((c) => c.name === 'openai-primary')?.id ?? '';
    const jobs = gateway.connections.store.mediaJobs;
    const id = newJobId('video');
    const now = new Date();
    await jobs.insertQueued(
      {
        id,
        accountId: 'acct_x',
        keyId: 'key_x',
        model: 'openai/sora-2',
        request: JOB_REQUESTS.video,
        holdMicros: 1n,
        deadlineAt: null,
      },
      now,
    );
    await jobs.markRunning(id, now);
    await jobs.recordOperation(
      id,
      { provider: 'openai', nativeModel: 'sora-2', operationId: 'v1', submittedAt: now, channelId },
      now,
    );
    const row = page.getByTestId('channel-openai-primary');
    await row.getByRole('button', { name: 'حذف' }).click();
    const dialog = page.getByRole('dialog', { name: 'حذف' });
    await dialog.getByRole('button', { name: 'حذف', exact: true }).click();
    await dialog.getByText('رندرهای ویدیویی روی این کانال در جریان‌اند', { exact: false }).waitFor();
    await shot(page, 'fa-desktop-channel-delete-force');
    await dialog.getByRole('button', { name: 'حذف و لغو رندرها' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await jobs.findById(id))?.status).toBe('failed');
  });

  it('shows the page in English, and at 375 px in both languages without sideways scrolling', async () => {
    await adminCall(gateway.origin, 'POST', '/channels', {
      provider: 'openai',
      name: 'openai-backup',
      api_key: CHANNEL_KEY,
      priority: 1,
    });
    for (const [lang, width] of [
      ['en', 1280],
      ['en', 375],
      ['fa', 375],
    ] as Array<[Lang, number]>) {
      const context = await newContext(browser, gateway.origin, lang, {
        width,
        height: width === 375 ? 812 : 900,
      });
      const tab = await context.newPage();
      const tabProblems = watchPageErrors(tab);
      await signIn(tab, lang);
      await tab.goto('/console/operator/channels');
      await tab.locator('h1').waitFor();
      await settled(tab);
      await tab.getByTestId('channel-openai-backup').waitFor();
      if (lang === 'en') await tab.getByRole('heading', { name: 'Channels' }).waitFor();
      await shot(tab, `${lang}-${width === 375 ? 'mobile' : 'desktop'}-channels`);
      const overflow = await tab.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      const wide = await tab.evaluate<string[]>(
        `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && true).slice(0, 8).map((e) => e.tagName + '.' + e.className)`,
      );
      expect(overflow, `${lang} ${width} scrolls sideways: ${wide.join(', ')}`).toBeLessThanOrEqual(0);
      expect(tabProblems).toEqual([]);
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});
