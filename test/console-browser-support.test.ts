// The console's support requests page in a real browser (Debian's Chromium, headless, through
// playwright-core): a request filed in the page and worked by the operator with the ops tool (its
// state, note and export archive following, the archive downloaded through a blob URL), and the
// list paged 25 at a time; axe-core at each step.
// The screenshots are those of docs/console.md (CONSOLE_SCREENSHOTS_DIR=docs/console to refresh).
import { readFile } from 'node:fs/promises';
import { eventually } from './support/bounded.js';
import { keyWith } from './support/console.js';
import { consoleBrowserFile, test, titled } from './support/consoleBrowser.js';
import { opsScript, runScript } from './support/processes.js';
import { BOOTSTRAP_KEY } from './support/service.js';

const c = consoleBrowserFile();
const { signIn, go, shoot, noSeriousViolations } = c;
const json = { 'Content-Type': 'application/json' };

const ops = async (...args: string[]): Promise<{ status: string; note: string | null }> => {
  const result = await runScript(opsScript, [...args, '--json'], { DATA_DIR: c.h.service.dataDir }, { timeoutMs: 90_000 });
  if (result.code !== 0) throw new Error(`ops ${args.join(' ')}: ${result.code} ${result.stderr}`);
  return JSON.parse(result.stdout) as { status: string; note: string | null };
};

test(titled('a support request filed in the page: the operator starts it and makes its export with the ops tool, the page shows each state and note, and the archive downloads through a blob URL'), async (t) => {
  const page = await c.browser.newPage();
  const urls: string[] = [];
  const filings: (string | undefined)[] = [];
  page.on('request', (request) => {
    urls.push(request.url());
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/support-requests') filings.push(request.headers()['idempotency-key']);
  });
  await signIn(page);
  await go(page, 'Support requests');
  t.regex((await page.locator('main').textContent()) ?? '', /sealed at rest/);
  await page.getByLabel('Type').selectOption('DATA_DUMP');
  await page.getByLabel('Message').fill('Everything you hold about us, please (console).');
  await noSeriousViolations(t, page, 'Support requests');
  await page.getByRole('button', { name: 'File request' }).click();
  await page.getByRole('heading', { level: 1, name: 'Support request', exact: true }).waitFor();
  const id = decodeURIComponent(page.url().split('#/support-requests/')[1] ?? '');
  t.regex(id, /^[0-9a-f-]{36}$/);
  t.is(filings.length, 1);
  t.regex(filings[0] ?? '', /^[0-9a-f-]{36}$/, 'filed with an Idempotency-Key');
  const state = page.locator('#support-state');
  const note = page.locator('#support-note');
  t.is(await state.textContent(), 'OPEN');
  t.regex((await page.locator('main').textContent()) ?? '', /Everything you hold about us, please \(console\)\./, 'the tenant reads its own message');
  t.is(await page.getByRole('button', { name: 'Download export' }).count(), 0, 'no export before the operator made it');
  await noSeriousViolations(t, page, 'a support request');

  /** Refreshes the page until it shows `status`. */
  const pageShows = async (status: string): Promise<boolean> =>
    eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await state.textContent()) === status;
    });
  t.is((await ops('support', 'start', id, '--note', 'preparing your export')).status, 'IN_PROGRESS');
  t.true(await pageShows('IN_PROGRESS'));
  t.is(await note.textContent(), 'preparing your export');
  t.is((await ops('support', 'export', id, '--note', 'ready for 7 days')).status, 'DONE');
  t.true(await pageShows('DONE'));
  t.is(await note.textContent(), 'ready for 7 days');
  const transitions = page.getByRole('table', { name: 'Transitions' }).getByRole('row');
  t.deepEqual((await transitions.allTextContents()).slice(1).map((row) => row.match(/^(OPEN|IN_PROGRESS|DONE)/)?.[1]), ['OPEN', 'IN_PROGRESS', 'DONE']);
  await noSeriousViolations(t, page, 'a support request with its export');
  await page.getByRole('button', { name: 'Download export' }).scrollIntoViewIfNeeded();
  await shoot(page, 'support-request');

  const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download export' }).click()]);
  t.regex(saved.url(), /^blob:/, 'saved from a blob URL');
  t.is(saved.suggestedFilename(), `export-${id}.tar`);
  const archive = await readFile((await saved.path())!);
  const fromApi = Buffer.from(await (await c.h.service.management(`/support-requests/${id}/export`)).arrayBuffer());
  t.deepEqual(archive, fromApi, 'the archive the API answers');
  t.true(archive.includes(Buffer.from('manifest.json')));
  await page.getByText('Downloaded.').waitFor();
  t.false(urls.some((url) => url.includes(BOOTSTRAP_KEY)), 'the key is in no URL');

  await go(page, 'Support requests');
  await page.getByRole('link', { name: id }).waitFor();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: id }) });
  t.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 3), [id, 'DATA_DUMP', 'DONE']);
  await page.close();
});

test(titled('the support requests list shows 25 a page, oldest first, and pages on'), async (t) => {
  const key = await keyWith(c.h.service, ['resources'], 'console-support-pages');
  const filed: string[] = [];
  for (let i = 1; i <= 26; i += 1) {
    const response = await c.h.service.management('/support-requests', { method: 'POST', key: key.secret, headers: json, body: JSON.stringify({ type: 'OTHER', message: `request ${i}` }) });
    t.is(response.status, 201);
    filed.push(((await response.json()) as { id: string }).id);
  }
  const page = await c.browser.newPage();
  await signIn(page, key.secret);
  await go(page, 'Support requests');
  const links = page.getByRole('table', { name: 'Support requests' }).getByRole('link');
  await page.getByText('Page 1', { exact: true }).waitFor();
  t.deepEqual(await links.allTextContents(), filed.slice(0, 25));
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2 (last page)').waitFor();
  t.deepEqual(await links.allTextContents(), filed.slice(25));
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1', { exact: true }).waitFor();
  t.is(await links.count(), 25);
  await page.close();
});
