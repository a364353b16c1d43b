/**
 * The API reference page (`/docs`, Swagger UI served by the api itself) in Chromium: it renders
 * every operation of `/openapi.json` under its tag, an operation opens with its responses, and the
 * page asks nothing of any origin but the gateway's. Screenshots under test-output/screenshots/.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import {
  launchChromium,
  newContext,
  SCREENSHOT_DIR,
  screenshot,
  takeBrowserLock,
  watchPageErrors,
} from './support/browser.ts';

const SETUP_TIMEOUT = 180_000;

describe('the API reference page', { timeout: 60_000 }, () => {
  let release: (() => void) | undefined;
  let gateway: ListeningApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  /** Every URL the page asked for that is not on the gateway's origin (refused). */
  const elsewhere: string[] = [];
  let operationCount = 0;
  let tags: string[] = [];

  beforeAll(async () => {
    release = await takeBrowserLock();
    gateway = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    const document = (await (await fetch(`${gateway.origin}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      tags: Array<{ name: string }>;
    };
    operationCount = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    tags = document.tags.map((tag) => tag.name);
    browser = await launchChromium();
    context = await newContext(browser, gateway.origin, 'en');
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${gateway.origin}/`) || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page = await context.newPage();
    problems = watchPageErrors(page);
  }, SETUP_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    release?.();
  });

  it('renders every operation of the document under its tag', async () => {
    await page.goto('/docs');
    await page.locator('.information-container .title').getByText('Model gateway API').waitFor();
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 30_000 }).toBe(operationCount);
    for (const tag of tags) await page.locator(`.opblock-tag[data-tag="${tag}"]`).waitFor();
    await expect(
      page.locator('.opblock-summary-path[data-path="/v1/chat/completions"]').count(),
    ).resolves.toBe(1);
    await screenshot(page, 'api-docs');
  });

  it('opens an operation with its request body and responses', async () => {
    const operation = page.locator('#operations-Chat-createChatCompletion');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.responses-table').waitFor();
    for (const status of ['200', '402', '429', '503']) {
      await operation.locator(`.responses-table tr.response[data-code="${status}"]`).waitFor();
    }
    await operation.getByText('X-RateLimit-Remaining').first().waitFor();
    // The operation's first screen (the whole of it is many screens long).
    await operation.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'api-docs-chat.png'), animations: 'disabled' });
  });

  it('asked nothing of another origin and logged no error', () => {
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });
});
