/**
 * The set-up of a console browser test file: the browser lock, the console built, a listening
 * gateway with the operator token (and a worker, for media), Chromium with one page speaking `lang`
 * whose errors are collected. Made before the file's tests, closed after them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { TEST_ADMIN_TOKEN } from '../../helpers/admin-client.ts';
import { lateBound, made } from '../../helpers/late-bound.ts';
import { type ListeningApp, startListeningApp } from '../../helpers/listening-app.ts';
import { startTestWorker, type TestWorker } from '../../helpers/test-worker.ts';
import { ensureConsoleForTests } from '../../setup/console-build.ts';
import { type Lang, launchChromium, newContext, takeBrowserLock, watchPageErrors } from './browser.ts';

export interface ConsoleBrowser {
  readonly gateway: ListeningApp;
  readonly browser: Browser;
  readonly page: Page;
  /** The page's console errors and CSP violations (each file asserts there are none). */
  readonly problems: string[];
}

export interface ConsoleBrowserOptions {
  /** Extra gateway environment (`ADMIN_TOKEN` is the test token). */
  readonly env?: Record<string, string>;
  readonly lang: Lang;
  /** Runs a worker on the gateway's queues (videos render). */
  readonly worker?: boolean;
}

/** Registers the file's `beforeAll` (within `setupTimeoutMs`) and `afterAll`; read once made. */
export function useConsoleBrowser(options: ConsoleBrowserOptions, setupTimeoutMs: number): ConsoleBrowser {
  let release: (() => void) | undefined;
  let gateway: ListeningApp | undefined;
  let worker: TestWorker | undefined;
  let browser: Browser | undefined;
  let opened: ConsoleBrowser | undefined;

  beforeAll(async () => {
    release = await takeBrowserLock();
    await ensureConsoleForTests();
    gateway = await startListeningApp({ env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...options.env } });
    if (options.worker === true) worker = await startTestWorker(gateway.config);
    browser = await launchChromium();
    const context = await newContext(browser, gateway.origin, options.lang);
    const page = await context.newPage();
    opened = { gateway, browser, page, problems: watchPageErrors(page) };
  }, setupTimeoutMs);

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await gateway?.close();
    release?.();
  });

  return lateBound(() => made(opened, 'the console browser'));
}
