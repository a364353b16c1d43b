/**
 * Self-serve in a real browser (Chromium, playwright-core) against a listening gateway with a real
 * SMTP server and the Zarinpal fake: sign up → "check your mail" → the verification link from the
 * mail → the wallet, signed in → top up through the fake's StartPay page ("Pay") → credited → a
 * voucher redeemed → the receipt; a cancelled payment; the operator's vouchers page. In English and
 * Persian (right-to-left), at desktop and 375 px width; screenshots under screenshots/39/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeMerchantId, startZarinpalFake, type ZarinpalFake } from '../fakes/zarinpal-gateway.ts';
import { TEST_ADMIN_TOKEN } from '../helpers/admin-client.ts';
import { type ListeningApp, startListeningApp } from '../helpers/listening-app.ts';
import { linkIn, type SmtpInbox, startSmtpInbox } from '../helpers/smtp-inbox.ts';
import { ensureConsoleForTests } from '../setup/console-build.ts';
import {
  type Lang,
  launchChromium,
  newContext,
  settled,
  takeBrowserLock,
  watchPageErrors,
} from './support/browser.ts';
import { adminCall } from './support/gateway.ts';

const SHOTS = join(import.meta.dirname, '..', '..', 'screenshots', '39');
const PASSWORD = 'correct horse battery staple';

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

const TEXT = {
  en: { signUp: 'Sign up', pay: 'Pay', redeem: 'Redeem', receipt: 'Receipt', paid: 'Payment received' },
  fa: { signUp: 'ثبت‌نام', pay: 'پرداخت', redeem: 'ثبت کد', receipt: 'رسید', paid: 'پرداخت رسید' },
} as const;

describe('web console: sign-up, top-up and vouchers', { timeout: 180_000 }, () => {
  let release: () => void;
  let inbox: SmtpInbox;
  let fake: ZarinpalFake;
  let gateway: ListeningApp;
  let browser: Browser;

  beforeAll(async () => {
    release = await takeBrowserLock();
    await ensureConsoleForTests();
    inbox = await startSmtpInbox();
    fake = await startZarinpalFake();
    gateway = await startListeningApp({
      env: {
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SIGNUP_MODE: 'open',
        SMTP_URL: inbox.url,
        ZARINPAL_MERCHANT_ID: fakeMerchantId(),
        ZARINPAL_BASE_URL: fake.baseUrl,
      },
    });
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fake?.close();
    await inbox?.close();
    release?.();
  });

  for (const [lang, width] of [
    ['en', 1280],
    ['fa', 1280],
    ['en', 375],
    ['fa', 375],
  ] as const satisfies readonly (readonly [Lang, number])[]) {
    it(`signs up, verifies from the mail, tops up through StartPay and redeems (${lang}, ${width} px)`, async () => {
      const size = width === 375 ? 'phone' : 'desktop';
      const context = await newContext(browser, gateway.origin, lang, {
        width,
        height: width === 375 ? 800 : 900,
      });
      const page = await context.newPage();
      const problems = watchPageErrors(page);
      const words = TEXT[lang];
      const email = `self-${lang}-${width}-${Date.now()}@example.test`;

      await page.goto('/console/sign-in');
      await expect.poll(() => page.locator('html').getAttribute('dir')).toBe(lang === 'fa' ? 'rtl' : 'ltr');
      await page.locator('a[href="/console/sign-up"]').click();
      await page.getByTestId('sign-up-form').waitFor();
      await page.locator('input[name=email]').fill(email);
      await page.locator('input[name=name]').fill(lang === 'fa' ? 'کاربر تازه' : 'New Holder');
      await page.locator('input[name=new-password]').fill(PASSWORD);
      await page.locator('input[name=confirm-password]').fill(PASSWORD);
      await shot(page, `${lang}-${size}-sign-up`);
      await page.getByRole('button', { name: words.signUp, exact: true }).click();
      await page.getByTestId('check-mail').waitFor();
      expect(await page.getByTestId('check-mail').textContent()).toContain(email);
      await shot(page, `${lang}-${size}-check-mail`);

      const [mail] = await inbox.waitFor(email);
      if (mail === undefined) throw new Error('no verification mail');
      expect(mail.parsed.html ? String(mail.parsed.html) : '').toContain(
        lang === 'fa' ? 'dir="rtl"' : 'dir="ltr"',
      );
      await page.goto(linkIn(mail));
      await page.waitForURL('**/console/wallet');
      await settled(page);
      expect(page.url()).not.toContain('token=');
      await shot(page, `${lang}-${size}-wallet-new`);

      // Top up: a preset, then the gateway's page, "Pay", back on the wallet credited.
      await page
        .getByTestId('top-up')
        .getByRole('button', { name: lang === 'fa' ? '۱۰۰٬۰۰۰' : '100,000' })
        .click();
      await page.getByTestId('top-up-submit').click();
      await page.waitForURL(`${fake.baseUrl}/pg/StartPay/**`);
      await shot(page, `${lang}-${size}-startpay`);
      await page.locator('#pay').click();
      await page.waitForURL('**/console/wallet?payment=paid**');
      await page.getByTestId('payment-result').waitFor();
      await settled(page);
      expect(await page.getByTestId('payment-result').textContent()).toContain(words.paid);
      const account = await gateway.services.accounts.accounts.findByEmail(email);
      const accountId = account?.id ?? '';
      const balance = await adminCall<{ balance: number }>(gateway.origin, 'GET', `/accounts/${accountId}`);
      expect(balance.balance).toBe(100_000);
      await expect
        .poll(() => page.getByTestId('payments-table').locator('tr[data-status=paid]').count())
        .toBe(1);
      await shot(page, `${lang}-${size}-wallet-paid`);

      // The receipt.
      await page.getByTestId('payments-table').getByRole('button', { name: words.receipt }).click();
      await page.getByTestId('receipt').waitFor();
      expect(await page.getByTestId('receipt').textContent()).toContain('502229******5995');
      await shot(page, `${lang}-${size}-receipt`);
      await page.keyboard.press('Escape');

      // A voucher.
      const batch = await adminCall<{ codes: string[] }>(gateway.origin, 'POST', '/vouchers', {
        amount: 25_000,
        count: 1,
      });
      await page
        .getByTestId('redeem')
        .locator('input[name=code]')
        .fill(batch.codes[0] ?? '');
      await page.getByTestId('redeem').getByRole('button', { name: words.redeem }).click();
      await page.getByTestId('redeemed').waitFor();
      await settled(page);
      const after = await adminCall<{ balance: number }>(gateway.origin, 'GET', `/accounts/${accountId}`);
      expect(after.balance).toBe(125_000);
      await shot(page, `${lang}-${size}-redeemed`);

      // The same code again: 409, said in the page's language.
      await page
        .getByTestId('redeem')
        .locator('input[name=code]')
        .fill(batch.codes[0] ?? '');
      await page.getByTestId('redeem').getByRole('button', { name: words.redeem }).click();
      await page.getByTestId('redeem').getByRole('alert').first().waitFor();
      await shot(page, `${lang}-${size}-redeem-used`);

      // A payment cancelled at the gateway: failed, said why, nothing credited.
      await page.getByTestId('top-up').locator('input[name=amount]').fill('20000');
      await page.getByTestId('top-up-submit').click();
      await page.waitForURL(`${fake.baseUrl}/pg/StartPay/**`);
      await page.locator('#cancel').click();
      await page.waitForURL('**/console/wallet?payment=failed**');
      await page.getByTestId('payment-result').waitFor();
      await settled(page);
      await shot(page, `${lang}-${size}-wallet-cancelled`);
      expect(
        (await adminCall<{ balance: number }>(gateway.origin, 'GET', `/accounts/${accountId}`)).balance,
      ).toBe(125_000);
      const failures = await gateway.services.billing.checkLedger();
      expect(failures).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  for (const lang of ['en', 'fa'] as const) {
    it(`shows the forgotten-password form and the operator's vouchers page (${lang})`, async () => {
      const context = await newContext(browser, gateway.origin, lang, { width: 375, height: 800 });
      const page = await context.newPage();
      const problems = watchPageErrors(page);
      await page.goto('/console/forgot');
      await page.locator('input[name=email]').fill('someone@example.test');
      await shot(page, `${lang}-phone-forgot`);
      await page.locator('form button[type=submit]').click();
      await page.getByTestId('check-mail').waitFor();
      await page.goto('/console/sign-in?as=operator');
      await page.locator('input[name=token]').fill(TEST_ADMIN_TOKEN);
      await page.locator('form button[type=submit]').click();
      await page.waitForURL('**/console/operator/accounts');
      await page.goto('/console/operator/vouchers');
      await settled(page);
      await page.locator('input[name=count]').fill('3');
      await page.locator('input[name=note]').fill(lang === 'fa' ? 'جشنواره' : 'launch');
      await page.locator('form.grid-form button[type=submit]').click();
      await page.getByTestId('voucher-codes').waitFor();
      const codes = (await page.getByTestId('voucher-codes').locator('pre').textContent())?.split('\n') ?? [];
      expect(codes).toHaveLength(3);
      await settled(page);
      await shot(page, `${lang}-phone-operator-vouchers`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await shot(page, `${lang}-desktop-operator-vouchers`);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
