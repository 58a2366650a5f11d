// What the console's browser tests share: the test function (skipped, its reason in the title,
// where Chromium is missing), a connector and a browser started for the test file, and the page
// steps every test takes: sign in, go to a page, take a screenshot, let axe-core judge it.
import anyTest, { type TestFn } from 'ava';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumMissing, launchBrowser, screenshotDirectory, seriousViolations, type Browser } from './browser.js';
import { BOOTSTRAP_KEY } from './service.js';
import { startVerificationHarness, type VerificationHarness } from './wallet/connector.js';

export const test = (chromiumMissing ? anyTest.skip : anyTest) as TestFn;
export const titled = (title: string): string => (chromiumMissing ? `${title} (skipped: ${chromiumMissing})` : title);

/** Every page of the console's navigation, in its order. */
export const NAVIGATION = ['Dashboard', 'Presentation requests', 'Offers', 'Deliveries', 'Resources', 'Support requests', 'Identity', 'Trusted lists'];

/** The page steps, over the harness and screenshot directory a test file started (read when called). */
const consolePage = (harness: () => VerificationHarness, shots: () => string) => {
  const consoleUrl = (): string => `${harness().service.service.managementUrl}/console/`;
  return {
    consoleUrl,
    signIn: async (page: Page, key: string = BOOTSTRAP_KEY): Promise<void> => {
      await page.goto(consoleUrl());
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation').getByRole('link', { name: 'Dashboard', exact: true }).waitFor();
    },
    go: async (page: Page, name: string): Promise<void> => {
      await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
    },
    shoot: (page: Page, name: string) => page.screenshot({ path: join(shots(), `${name}.png`) }),
    noSeriousViolations: async (t: { deepEqual(a: unknown, b: unknown, m?: string): void }, page: Page, where: string): Promise<void> => {
      t.deepEqual(await seriousViolations(page), [], `axe-core on ${where}`);
    },
  };
};

/**
 * A connector (the verification harness, with `env` and `options`, handed to `prepare` once it
 * runs) and Chromium started before the file's tests and closed after them, and the page steps
 * over them.
 */
export const consoleBrowserFile = (
  env: Parameters<typeof startVerificationHarness>[0] = {},
  options: Parameters<typeof startVerificationHarness>[1] = {},
  prepare: (h: VerificationHarness) => void = () => undefined,
) => {
  let h: VerificationHarness | undefined;
  let browser: Browser | undefined;
  let shots = '';
  anyTest.before(async () => {
    if (chromiumMissing) return;
    h = await startVerificationHarness(env, options);
    prepare(h);
    browser = await launchBrowser();
    shots = await screenshotDirectory();
  });
  anyTest.after.always(async () => {
    await browser?.close();
    await h?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the console browser file has not started');
    return value;
  };
  return {
    get h(): VerificationHarness {
      return started(h);
    },
    get browser(): Browser {
      return started(browser);
    },
    ...consolePage(() => started(h), () => shots),
  };
};
