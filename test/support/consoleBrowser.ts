// What the console's browser tests share: the test function (skipped, its reason in the title,
// where Chromium is missing), and the page steps every test takes: sign in, go to a page, take a
// screenshot, let axe-core judge it.
import anyTest, { type TestFn } from 'ava';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumMissing, seriousViolations } from './browser.js';
import { BOOTSTRAP_KEY } from './service.js';
import type { VerificationHarness } from './wallet/connector.js';

export const test = (chromiumMissing ? anyTest.skip : anyTest) as TestFn;
export const titled = (title: string): string => (chromiumMissing ? `${title} (skipped: ${chromiumMissing})` : title);

/** Every page of the console's navigation, in its order. */
export const NAVIGATION = ['Dashboard', 'Presentation requests', 'Offers', 'Deliveries', 'Resources', 'Support requests', 'Identity', 'Trusted lists'];

/** The page steps, over the harness and screenshot directory a test file started (read when called). */
export const consolePage = (harness: () => VerificationHarness, shots: () => string) => {
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
