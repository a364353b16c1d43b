/**
 * The Requests page of the web console (docs/request-log.md) in a real browser: the holder's own
 * requests with filters, the search by id and its detail, the CSV export of the filtered range;
 * the same in Persian (right to left) and at phone width; the operator's page across accounts with
 * its account filter. Screenshots under screenshots/37/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import type { ListeningApp } from '../helpers/listening-app.ts';
import { newContext, settled } from './support/browser.ts';
import { useConsoleBrowser } from './support/console-browser.ts';
import { adminCall, invitationFor, PASSWORD } from './support/gateway.ts';

const STEP_TIMEOUT = 120_000;
const SHOTS = fileURLToPath(new URL('../../screenshots/37/', import.meta.url));

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** The page does not scroll sideways (wide tables scroll inside their own box). */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')) === true;
}

describe('web console: the request log', { timeout: STEP_TIMEOUT }, () => {
  const session = useConsoleBrowser({ lang: 'en' }, 300_000);
  let gateway: ListeningApp;
  let page: Page;
  let problems: string[];
  let accountId: string;
  const ids: string[] = [];
  let failedId: string;

  beforeAll(async () => {
    ({ gateway, page, problems } = session);
    const email = `requests-${Date.now()}@example.test`;
    accountId = (await adminCall<{ id: string }>(gateway.origin, 'POST', '/accounts', { email })).id;
    await adminCall(gateway.origin, 'POST', `/accounts/${accountId}/topups`, { amount: 50_000 });
    const key = await adminCall<{ key: string }>(gateway.origin, 'POST', `/accounts/${accountId}/keys`, {
      name: 'Backend',
    });
    const client = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey: key.key, maxRetries: 0 });
    for (let i = 0; i < 3; i += 1) {
      const { response } = await client.chat.completions
        .create({ model: 'demo/chat', messages: [{ role: 'user', content: `hello ${i}` }] })
        .withResponse();
      ids.push(response.headers.get('x-request-id') as string);
    }
    const refused = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nobody/no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    });
    failedId = refused.headers.get('x-request-id') as string;
    await gateway.services.requestLog.flush();
    const link = await invitationFor(gateway.origin, accountId);
    await page.goto(link);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('lists the holder’s requests newest first, with their outcome and cost', async () => {
    await page.locator('nav.mainnav').getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('heading', { name: 'Requests', exact: true }).waitFor();
    await settled(page);
    const rows = page.getByTestId('requests-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.first().textContent()).toContain('Failed');
    expect(await rows.nth(1).textContent()).toContain('Completed');
    await shot(page, 'en-requests');
    expect(await fitsWidth(page)).toBe(true);
  });

  it('finds a request by its id and shows every field', async () => {
    await page.getByTestId('request-search').fill(ids[0] as string);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    const detail = page.getByTestId('request-fields');
    await detail.waitFor();
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain(ids[0]);
    expect(text).toContain('demo/chat');
    expect(text).toContain('POST /v1/chat/completions');
    await shot(page, 'en-request-detail');
    await page.getByTestId('request-search').fill('req_nothing');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByTestId('request-detail').locator('.state-error, [role="alert"]').first().waitFor();
    await page.getByTestId('request-detail').getByRole('button', { name: 'Close' }).click();
  });

  it('filters failed requests and exports the filtered range as CSV', async () => {
    await page.getByTestId('filter-status').selectOption('error');
    const rows = page.getByTestId('requests-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const file = await (await download).path();
    const csv = readFileSync(file, 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,created,account_id,key_id/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(failedId);
    expect(lines[1]).toContain('model_not_found');
    await page.getByTestId('filter-status').selectOption('');
    await expect.poll(() => rows.count()).toBe(4);
  });

  it('in Persian: right to left, and at phone width', async () => {
    await page.getByTestId('language-switch').click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.getByRole('heading', { name: 'درخواست‌ها', exact: true }).waitFor();
    await settled(page);
    await shot(page, 'fa-requests');
    await page.getByTestId('request-search').fill(ids[1] as string);
    await page.getByRole('button', { name: 'یافتن', exact: true }).click();
    await page.getByTestId('request-fields').waitFor();
    await shot(page, 'fa-request-detail');
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, 'fa-requests-375');
    expect(await fitsWidth(page)).toBe(true);
    await page.getByTestId('language-switch').click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('ltr');
    await shot(page, 'en-requests-375');
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the operator sees every account’s requests and filters by account', async () => {
    const context = await newContext(session.browser, gateway.origin, 'fa');
    const operator = await context.newPage();
    await operator.goto('/console/sign-in');
    await operator.getByRole('tab', { name: 'اپراتور' }).click();
    await operator.getByLabel('توکن اپراتور').fill(TEST_ADMIN_TOKEN);
    await operator.getByRole('button', { name: 'ورود به عنوان اپراتور' }).click();
    await operator.getByRole('heading', { name: 'حساب‌ها' }).waitFor();
    await operator.locator('nav.mainnav').getByRole('link', { name: 'درخواست‌ها', exact: true }).click();
    await operator.getByRole('heading', { name: 'درخواست‌های همهٔ حساب‌ها' }).waitFor();
    await operator.getByTestId('filter-account').fill(accountId);
    await operator.getByTestId('filter-account').press('Tab');
    const rows = operator.getByTestId('requests-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.first().textContent()).toContain(accountId);
    await shot(operator, 'fa-operator-requests');
    await operator.setViewportSize({ width: 375, height: 800 });
    await shot(operator, 'fa-operator-requests-375');
    expect(await fitsWidth(operator)).toBe(true);
    await context.close();
  });

  it('raised no page errors', () => {
    expect(problems).toEqual([]);
  });
});
