// Debian's Chromium, headless, driven by playwright-core (no browser download: the system
// binary), with a fresh empty profile per browser; axe-core injected into pages to check them.
// Where Chromium is not installed, `chromiumMissing` says so and the suites skip, saying why.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser suites cannot run here, or undefined when they can. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install chromium)`;

export interface Browser {
  readonly context: BrowserContext;
  newPage(width?: number): Promise<Page>;
  close(): Promise<void>;
}

export const launchBrowser = async (): Promise<Browser> => {
  const profile = await mkdtemp(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 960, height: 640 },
  });
  return {
    context,
    async newPage(width = 960) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 640 });
      return page;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
};

const axeSource = async (): Promise<string> => readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules). */
export const seriousViolations = async (page: Page): Promise<readonly Violation[]> => {
  // As a script element the page's CSP would refuse; evaluated through the debugging protocol it runs.
  await page.evaluate(await axeSource());
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};

/**
 * Where screenshots go: CONSOLE_SCREENSHOTS_DIR (docs/console to refresh the documentation's), or
 * a temporary directory.
 */
export const screenshotDirectory = async (): Promise<string> => {
  const directory = process.env['CONSOLE_SCREENSHOTS_DIR'] ?? (await mkdtemp(join(tmpdir(), 'console-shots-')));
  await mkdir(directory, { recursive: true });
  return directory;
};
