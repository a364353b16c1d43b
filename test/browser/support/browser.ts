/**
 * Browser tests drive Debian's Chromium (`/usr/bin/chromium`, `apt-get install -y chromium`; CI's
 * .ci/run installs it) with playwright-core: no browser download. One browser test file runs at a
 * time (a lock folder), so two Chromiums never share the machine's two cores with the suite.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-output', 'screenshots');

/** The flags this machine's Chromium needs (no sandbox as root, no background network calls). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
}

export type Lang = 'en' | 'fa';

/**
 * A fresh browser profile speaking `lang` (navigator.language and Accept-Language), clipboard
 * allowed, in the billing zone of the tests (Asia/Tehran) unless `timezoneId` names another.
 */
export async function newContext(
  browser: Browser,
  origin: string,
  lang: Lang,
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
  timezoneId = 'Asia/Tehran',
): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: lang === 'fa' ? 'fa-IR' : 'en-US',
    viewport,
    timezoneId,
    baseURL: origin,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  context.setDefaultTimeout(15_000);
  return context;
}

/** Saves a full-page screenshot as `test-output/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  // Let fonts and the chart settle.
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

/** Collects the page's console errors and CSP violations, which every test asserts are none. */
export function watchPageErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // Expected: the API's own 4xx answers the test provokes (the key refused after disabling, …).
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  return problems;
}

/** Retries `check` (reloading the page between tries when asked) until it passes or time runs out. */
export async function eventually<T>(
  check: () => Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; between?: () => Promise<unknown> } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 300));
      await options.between?.();
    }
  }
}

const LOCK_DIR = join(tmpdir(), 'gateway-browser-tests.lock');

/** Waits until no other browser test file runs, then holds the lock until `release()`. */
export async function takeBrowserLock(waitMs = 12 * 60_000): Promise<() => void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      writeFileSync(join(LOCK_DIR, 'pid'), String(process.pid));
      return () => rmSync(LOCK_DIR, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (holderIsGone()) rmSync(LOCK_DIR, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error('timed out waiting for another browser test file');
    else await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A lock whose process died (a killed test run) is free. */
function holderIsGone(): boolean {
  try {
    const pid = Number(readFileSync(join(LOCK_DIR, 'pid'), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - statSync(LOCK_DIR).mtimeMs > 10_000;
    process.kill(pid, 0);
    return false;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ESRCH: no such process; ENOENT: the lock is being made or was just released.
    return code === 'ESRCH';
  }
}

/** Follows a link of the main navigation (by its exact text). */
export async function navTo(page: Page, name: string): Promise<void> {
  await page.locator('nav.mainnav').getByRole('link', { name, exact: true }).click();
}

/** Waits until the page shows no loading state any more. */
export async function settled(page: Page): Promise<void> {
  await eventually(async () => {
    const loading = await page.locator('.state-loading').count();
    if (loading > 0) throw new Error(`${loading} parts of the page still loading`);
  });
}
