/**
 * The operator's "Models and prices" page and an account's price plan (docs/catalogue.md), in
 * Persian (the browser's language) then English, at desktop width and at 375 px: search, disable
 * and enable a model, edit its price (the dialog shows the list price, the rate and the effective
 * price), the rate and the markup, the history, a default media model reported disabled.
 * Screenshots under screenshots/38/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import type { ListeningApp } from '../helpers/listening-app.ts';
import { navTo, settled } from './support/browser.ts';
import { useConsoleBrowser } from './support/console-browser.ts';
import { adminCall } from './support/gateway.ts';

const STEP_TIMEOUT = 120_000;
const SHOTS = join(import.meta.dirname, '..', '..', 'screenshots', '38');

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

describe('web console: models and prices', { timeout: STEP_TIMEOUT }, () => {
  const session = useConsoleBrowser({ lang: 'fa' }, 300_000);
  let gateway: ListeningApp;
  let page: Page;
  let problems: string[];

  beforeAll(() => {
    ({ gateway, page, problems } = session);
  });

  it('signs the operator in and opens the page in Persian, right to left', async () => {
    await page.goto('/console/sign-in');
    await page.getByRole('tab', { name: 'اپراتور' }).click();
    await page.getByLabel('توکن اپراتور').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'ورود به عنوان اپراتور' }).click();
    await page.getByRole('heading', { name: 'حساب‌ها' }).waitFor();
    await navTo(page, 'مدل‌ها و قیمت‌ها');
    await page.getByRole('heading', { name: 'مدل‌ها و قیمت‌ها' }).waitFor();
    await settled(page);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await page.getByTestId('catalogue-table').waitFor();
  });

  it('searches, disables a default media model (reported) and enables it again', async () => {
    await page.getByTestId('catalogue-search').fill('demo/');
    const row = page.getByTestId('catalogue-table').locator('tr', { hasText: 'demo/chat-reasoning' });
    await row.waitFor();
    expect(await page.getByTestId('catalogue-table').locator('tbody tr').count()).toBeLessThan(12);
    const image = gateway.config.media.defaultImageModel;
    await page.getByTestId('catalogue-search').fill(image);
    const exact = new RegExp(`^${image.replace(/[/.-]/g, '\\$&')}$`);
    const imageRow = page
      .getByTestId('catalogue-table')
      .locator('tbody tr')
      .filter({ has: page.locator('code', { hasText: exact }) });
    await imageRow.getByRole('button', { name: 'غیرفعال کردن' }).click();
    await imageRow.getByText('غیرفعال', { exact: true }).waitFor();
    await page.getByTestId('unavailable-defaults').getByText(image, { exact: true }).waitFor();
    await shot(page, 'fa-models-default-disabled');
    await imageRow.getByRole('button', { name: 'فعال کردن', exact: true }).click();
    await imageRow.getByText('فعال', { exact: true }).waitFor();
  });

  it('edits a price: the dialog shows the list price, the rate and the effective price', async () => {
    await page.getByTestId('catalogue-search').fill('demo/chat-reasoning');
    const row = page.getByTestId('catalogue-table').locator('tr', { hasText: 'demo/chat-reasoning' });
    await row.getByRole('button', { name: 'ویرایش قیمت' }).click();
    const dialog = page.getByRole('dialog');
    const facts = dialog.getByTestId('price-facts');
    await facts.getByText('$0.02').waitFor();
    expect(await facts.textContent()).toContain('قیمت مؤثر');
    await shot(page, 'fa-price-dialog');
    await dialog.getByLabel('قیمت ورودی (تومان به ازای واحد)').fill('-5');
    await dialog.getByRole('button', { name: 'ذخیره' }).click();
    await dialog.locator('[role=alert]').first().waitFor();
    await dialog.getByLabel('قیمت ورودی (تومان به ازای واحد)').fill('1500');
    await dialog.getByLabel('قیمت خروجی (تومان به ازای واحد)').fill('3000');
    await dialog.getByRole('button', { name: 'ذخیره' }).click();
    await row.getByText('قیمت تعیین‌شده توسط اپراتور').waitFor();
    const models = await adminCall<{ data: { id: string; pricing: { input: number } }[] }>(
      gateway.origin,
      'GET',
      '/models',
    );
    expect(models.data.find((m) => m.id === 'demo/chat-reasoning')?.pricing.input).toBe(1500);
  });

  it('sets the rate and the markup, and shows the history', async () => {
    const rate = page.getByTestId('rate-editor');
    await rate.getByRole('textbox').fill('0');
    await rate.getByRole('button', { name: 'ذخیره' }).click();
    await rate.locator('[role=alert]').first().waitFor();
    await rate.getByRole('textbox').fill('110000');
    await rate.getByRole('button', { name: 'ذخیره' }).click();
    await rate.getByText(new Intl.NumberFormat('fa-IR').format(110000)).waitFor();
    const markup = page.getByTestId('markup-editor');
    await markup.getByRole('textbox').fill('5');
    await markup.getByRole('button', { name: 'ذخیره' }).click();
    await page.getByTestId('catalogue-history').getByText('markup_percent').waitFor();
    const history = await page.getByTestId('catalogue-history').textContent();
    expect(history).toContain('کنسول');
    expect(history).toContain('irt_per_usd');
    await page.getByTestId('catalogue-search').fill('');
    await settled(page);
    await shot(page, 'fa-models-and-prices');
  });

  it('fits 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByTestId('catalogue-search').fill('demo/');
    await settled(page);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'fa-models-375');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('gives an account a price plan on its page', async () => {
    const account = await adminCall<{ id: string }>(gateway.origin, 'POST', '/accounts', {
      email: `plan-${Date.now()}@example.test`,
    });
    await page.goto(`/console/operator/accounts/${account.id}`);
    const plan = page.getByTestId('price-plan');
    await plan.getByText('طرح قیمت').waitFor();
    await plan.getByRole('textbox').fill('20');
    await plan.getByRole('button', { name: 'ذخیره' }).click();
    await plan.locator('[role=alert]').first().waitFor();
    await plan.getByRole('textbox').fill('0.9');
    await plan.getByRole('button', { name: 'ذخیره' }).click();
    await plan.getByText(`× ${new Intl.NumberFormat('fa-IR').format(0.9)}`).waitFor();
    const seen = await adminCall<{ price_multiplier: number }>(
      gateway.origin,
      'GET',
      `/accounts/${account.id}`,
    );
    expect(seen.price_multiplier).toBe(0.9);
    await shot(page, 'fa-account-price-plan');
  });

  it('shows the same pages in English', async () => {
    await page.getByRole('button', { name: 'English' }).click();
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    await page.getByText('Price plan').waitFor();
    await shot(page, 'en-account-price-plan');
    await navTo(page, 'Models and prices');
    await page.getByRole('heading', { name: 'Models and prices' }).waitFor();
    await settled(page);
    await page.getByText('Change history').waitFor();
    await shot(page, 'en-models-and-prices');
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByTestId('catalogue-search').fill('demo/chat');
    await settled(page);
    await shot(page, 'en-models-375');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
  });
});
