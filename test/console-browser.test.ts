// The console in a real browser (Debian's Chromium, headless, through playwright-core): sign-in,
// every page with axe-core finding no serious or critical violation, a presentation's timeline
// updating live while the wallet simulator answers, an abandoned callback re-sent, an issued
// credential revoked until a verifier's status check fails, two revisions compared, an If-Match
// conflict shown, a support request filed in the page and worked by the operator with the ops tool
// (its state, note and export archive following), scopes and tenants kept apart, and the API key
// nowhere but in the page's memory.
// The screenshots are those of docs/console.md (CONSOLE_SCREENSHOTS_DIR=docs/console to refresh).
import anyTest, { type TestFn } from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLogger } from '../src/log.js';
import { eventually } from './support/bounded.js';
import { chromiumMissing, launchBrowser, screenshotDirectory, seriousViolations, type Browser } from './support/browser.js';
import { certificatesToPem, certifyPublicKey, createCertificateAuthority, DAY_MS, EC_P256 } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { keyWith } from './support/console.js';
import { registrationCertificate } from './support/registrationCertificate.js';
import { opsScript, runScript } from './support/processes.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';
import { answer, fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';

const test = (chromiumMissing ? anyTest.skip : anyTest) as TestFn;
const titled = (title: string): string => (chromiumMissing ? `${title} (skipped: ${chromiumMissing})` : title);

let h: VerificationHarness;
let browser: Browser;
let shots: string;
const logLines: string[] = [];
/** Sessions whose callbacks the integrator refuses. */
const refused = new Set<string>();

anyTest.before(async () => {
  if (chromiumMissing) return;
  const log = createLogger({ level: 'debug', write: (line) => logLines.push(line) });
  h = await startVerificationHarness({ CALLBACK_RETRY_SCHEDULE: '0,50ms' }, { log });
  h.receiver.respond = (request) => ({ status: refused.has(String((JSON.parse(request.body) as { state?: unknown }).state)) ? 500 : 200 });
  browser = await launchBrowser();
  shots = await screenshotDirectory();
});

anyTest.after.always(async () => {
  await browser?.close();
  await h?.close();
});

const consoleUrl = (): string => `${h.service.service.managementUrl}/console/`;

const signIn = async (page: Page, key: string = BOOTSTRAP_KEY): Promise<void> => {
  await page.goto(consoleUrl());
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation').getByRole('link', { name: 'Dashboard', exact: true }).waitFor();
};

const go = async (page: Page, name: string): Promise<void> => {
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
};

const shoot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`) });

const noSeriousViolations = async (t: { deepEqual(a: unknown, b: unknown, m?: string): void }, page: Page, where: string): Promise<void> => {
  t.deepEqual(await seriousViolations(page), [], `axe-core on ${where}`);
};

const NAVIGATION = ['Dashboard', 'Presentation requests', 'Offers', 'Deliveries', 'Resources', 'Support requests', 'Identity', 'Trusted lists'];

test.serial(titled('signed in with an API key: the tenant and scopes shown, each page under its heading and link, axe-core finds nothing serious, and the key is only in memory'), async (t) => {
  const page = await browser.newPage();
  const urls: string[] = [];
  let authorized = 0;
  page.on('request', (request) => {
    urls.push(request.url());
    if (request.headers()['authorization'] === `Bearer ${BOOTSTRAP_KEY}`) authorized += 1;
  });
  // A few flows, so that the pages have something to show.
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  await h.callback(created.state);
  await h.request({ dcql_query: pidQuery() });

  await page.goto(consoleUrl());
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await noSeriousViolations(t, page, 'the sign-in page');
  await shoot(page, 'sign-in');
  await signIn(page);
  t.is(await page.locator('#tenant-name').textContent(), 'default');
  t.is(await page.locator('#tenant-id').textContent(), '00000000-0000-4000-8000-000000000001');
  t.is(await page.locator('#scopes').textContent(), 'admin, connector, resources');
  for (const name of NAVIGATION) {
    await go(page, name);
    await page.waitForLoadState('networkidle');
    await noSeriousViolations(t, page, name);
    if (['Dashboard', 'Presentation requests'].includes(name)) await shoot(page, name.toLowerCase().replace(/ /g, '-'));
  }
  await page.getByRole('navigation').getByRole('link', { name: 'Presentation requests', exact: true }).click();
  await page.getByRole('link', { name: `${created.state.slice(0, 12)}…` }).click();
  await page.getByText('PresentationFulfilled').waitFor();
  await noSeriousViolations(t, page, 'a presentation request');
  await go(page, 'Auditor view');
  await page.getByLabel('Stream name').fill(`presentation-${created.state}`);
  await page.getByRole('button', { name: 'Open stream' }).click();
  await page.getByText('Event 1 of 3').waitFor();
  await page.getByRole('button', { name: 'Next event' }).click();
  await page.getByText('Event 2 of 3').waitFor();
  await noSeriousViolations(t, page, 'the auditor view');
  await shoot(page, 'auditor-view');

  t.true(authorized > 0, 'the key went in the Authorization header');
  t.false(urls.some((url) => url.includes(BOOTSTRAP_KEY)), 'never in a URL');
  t.false(page.url().includes(BOOTSTRAP_KEY));
  t.false(JSON.stringify(await browser.context.cookies()).includes(BOOTSTRAP_KEY), 'never in a cookie');
  const storage = await page.evaluate(() => {
    const all = (s: { length: number; key(i: number): string | null; getItem(k: string): string | null }) =>
      Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i) ?? '')}`).join('\n');
    const g = globalThis as unknown as { localStorage: Parameters<typeof all>[0]; sessionStorage: Parameters<typeof all>[0] };
    return `${all(g.localStorage)}\n${all(g.sessionStorage)}`;
  });
  t.false(storage.includes(BOOTSTRAP_KEY), 'never in localStorage or sessionStorage');
  t.false(logLines.some((line) => line.includes(BOOTSTRAP_KEY)), 'never in the service log');
  t.true(logLines.some((line) => line.includes('/console/api/')), 'the log did see the console\'s requests');
  // A reload forgets the key.
  await page.reload();
  await page.getByLabel('API key').waitFor();
  await page.close();
});

test(titled('a wrong key shows the problem\'s title and detail'), async (t) => {
  const page = await browser.newPage();
  await page.goto(consoleUrl());
  await page.getByLabel('API key').fill('not-a-key-of-this-service-0123456789');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex((await alert.textContent()) ?? '', /Unauthorized.*unknown, expired or revoked/);
  await page.close();
});

test(titled('at 360 px wide every page fits without scrolling sideways'), async (t) => {
  const page = await browser.newPage(360);
  await signIn(page);
  for (const name of NAVIGATION) {
    await go(page, name);
    await page.waitForLoadState('networkidle');
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    t.true(width <= 360, `${name} is ${width} px wide`);
  }
  await shoot(page, 'narrow');
  await page.close();
});

test(titled('a presentation\'s timeline updates live while the wallet answers, without a reload'), async (t) => {
  const page = await browser.newPage();
  await signIn(page);
  const created = await h.request({ dcql_query: pidQuery() });
  await page.goto(`${consoleUrl()}#/presentations/${created.state}`);
  // The sign-in survives a change of fragment, not a reload: navigate inside the page instead.
  if (await page.getByLabel('API key').isVisible()) await signIn(page);
  await page.evaluate((state) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = `#/presentations/${state}`;
  }, created.state);
  await page.getByText('PresentationRequested').waitFor();
  await page.evaluate(() => {
    (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
  });
  const request = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  await page.getByText('PresentationRequestFetched').waitFor();
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  await page.getByText('PresentationFulfilled').waitFor();
  t.true(await page.evaluate(() => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage === true), 'no reload');
  const text = (await page.locator('main').textContent()) ?? '';
  t.regex(text, /No claim value is ever shown/);
  t.false(text.includes('Erika') || text.includes('Mustermann'), 'no claim value');
  t.regex(text, /\[sealed: not shown\]/);
  // Its callback, with its attempt, under the timeline.
  await h.callback(created.state);
  const callbacks = page.getByRole('region', { name: 'Callbacks' });
  t.true(await eventually(async () => {
    await page.getByRole('button', { name: 'Refresh callbacks' }).click();
    return (await callbacks.getByRole('cell', { name: 'delivered', exact: true }).count()) === 1;
  }), 'the delivered callback is listed');
  await noSeriousViolations(t, page, 'a live timeline');
  await shoot(page, 'presentation-timeline');
  await page.close();
});

test(titled('an abandoned callback is re-sent from Deliveries and then delivered'), async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  refused.add(created.state);
  t.is((await postResponse(h.endpoints, request, { error: 'access_denied', state: created.state })).status, 200);
  const stateOf = async (): Promise<string | undefined> => {
    const page = (await (await h.service.management('/console/api/deliveries?limit=100')).json()) as { items: { event_id: string; state: string }[] };
    return page.items.find((d) => d.event_id === created.state)?.state;
  };
  t.true(await eventually(async () => (await stateOf()) === 'abandoned'));
  refused.delete(created.state);
  const page = await browser.newPage();
  await signIn(page);
  await go(page, 'Deliveries');
  await page.getByLabel('State').selectOption('abandoned');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  const row = page.getByRole('row').filter({ hasText: 'REJECTED' }).filter({ has: page.getByRole('button', { name: 'Resend' }) });
  await row.first().waitFor();
  await shoot(page, 'deliveries-abandoned');
  await row.first().getByRole('button', { name: 'Resend' }).click();
  await page.getByText('is pending again').waitFor();
  t.true(await eventually(async () => (await stateOf()) === 'delivered'), 'the re-sent callback is delivered');
  await page.close();
});

test(titled('revoking an issued credential from its offer makes a verifier\'s status check fail'), async (t) => {
  const s = h.service;
  const offer = await createOffer(s, { credential_configuration_id: 'membership', claims: { member_number: 'M-7', given_name: 'Erika', family_name: 'Mustermann' } });
  const wallet = await IssuanceWallet.create(s.config.publicUrl, s.service.publicListenUrl);
  const credential = await wallet.receive(offer.credential_offer_uri);
  await waitForOffer(s, offer.offer_id, (b) => b.status === 'ISSUED');
  await verifyIssuedCredential(s, credential);
  const page = await browser.newPage();
  await signIn(page);
  await go(page, 'Offers');
  await page.getByRole('link', { name: offer.offer_id }).click();
  await page.getByText('The issued credential is valid.').waitFor();
  await page.getByRole('button', { name: 'Revoke' }).click();
  await page.getByText('The issued credential is revoked.').waitFor();
  await noSeriousViolations(t, page, 'an offer');
  await shoot(page, 'offer-revoked');
  await t.throwsAsync(verifyIssuedCredential(s, credential), { message: /Status is not valid/ });
  // Revocation is final: the service's refusal is shown as a problem.
  await page.getByRole('button', { name: 'Reinstate' }).click();
  t.regex((await page.getByRole('alert').textContent()) ?? '', /Conflict/);
  await page.close();
});

const json = { 'Content-Type': 'application/json' };

test(titled('two revisions of a resource compared field by field; an edit on a stale version shows the conflict and overwrites nothing'), async (t) => {
  const s = h.service;
  const created = await s.management('/schemas', { method: 'POST', headers: json, body: JSON.stringify({ data: { slug: 'console-member', version: '1', schema: { type: 'object', properties: { name: { type: 'string' } } } } }) });
  t.is(created.status, 201);
  const schema = (await created.json()) as { id: string; etag: string };
  let etag = schema.etag;
  for (const labels of [{ team: 'blue' }, { team: 'green', tier: 'gold' }]) {
    const put = await s.management(`/schemas/${schema.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': etag }, body: JSON.stringify({ labels }) });
    t.is(put.status, 200);
    etag = put.headers.get('etag')!;
  }
  const page = await browser.newPage();
  await signIn(page);
  await go(page, 'Resources');
  // Searched as the resource API does: by label (and the others' schemas are not listed).
  await page.getByLabel('Label key').fill('tier');
  await page.getByLabel('Label value').fill('gold');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Page 1 (last page)').waitFor();
  const found = page.getByRole('table', { name: 'Resources' }).getByRole('link');
  t.deepEqual(await found.allTextContents(), [schema.id]);
  await page.getByRole('link', { name: schema.id }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  await page.getByLabel('From revision').selectOption('1');
  await page.getByLabel('To revision').selectOption('3');
  await page.getByRole('button', { name: 'Compare' }).click();
  const compared = page.getByRole('table', { name: 'Revision 1 compared with revision 3' });
  const tier = compared.getByRole('row').filter({ hasText: 'labels.tier' });
  await tier.waitFor();
  t.deepEqual(await tier.getByRole('cell').allTextContents(), ['labels.tier', '(absent)', 'gold', 'yes']);
  t.deepEqual(await compared.getByRole('row').filter({ hasText: 'labels.team' }).getByRole('cell').allTextContents(), ['labels.team', '(absent)', 'green', 'yes']);
  t.deepEqual(await compared.getByRole('row').filter({ hasText: 'data.slug' }).getByRole('cell').allTextContents(), ['data.slug', '"console-member"', '"console-member"', 'no']);
  await noSeriousViolations(t, page, 'a resource');
  await compared.scrollIntoViewIfNeeded();
  await shoot(page, 'resource-compare');

  // Someone else changes the labels after the page loaded them.
  const theirs = await s.management(`/schemas/${schema.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': etag }, body: JSON.stringify({ labels: { team: 'red' } }) });
  t.is(theirs.status, 200);
  await page.getByLabel('Labels (JSON)').fill('{"team": "mine"}');
  await page.getByRole('button', { name: 'Save labels' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex((await alert.textContent()) ?? '', /Precondition failed/);
  await page.getByText('Nothing was overwritten. The current version is revision 4').scrollIntoViewIfNeeded();
  await shoot(page, 'resource-conflict');
  const now = (await (await s.management(`/schemas/${schema.id}`)).json()) as { revision: number; labels: Record<string, string> };
  t.deepEqual(now.labels, { team: 'red' });
  t.is(now.revision, 4);
  await page.close();
});

/** The platform operator's ops tool, a child process on the service's DATA_DIR (as test/support-requests.test.ts runs it). */
const ops = async (...args: string[]): Promise<{ status: string; note: string | null }> => {
  const result = await runScript(opsScript, [...args, '--json'], { DATA_DIR: h.service.dataDir }, { timeoutMs: 90_000 });
  if (result.code !== 0) throw new Error(`ops ${args.join(' ')}: ${result.code} ${result.stderr}`);
  return JSON.parse(result.stdout) as { status: string; note: string | null };
};

test(titled('a support request filed in the page: the operator starts it and makes its export with the ops tool, the page shows each state and note, and the archive downloads through a blob URL'), async (t) => {
  const page = await browser.newPage();
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
  const fromApi = Buffer.from(await (await h.service.management(`/support-requests/${id}/export`)).arrayBuffer());
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
  const key = await keyWith(h.service, ['resources'], 'console-support-pages');
  const filed: string[] = [];
  for (let i = 1; i <= 26; i += 1) {
    const response = await h.service.management('/support-requests', { method: 'POST', key: key.secret, headers: json, body: JSON.stringify({ type: 'OTHER', message: `request ${i}` }) });
    t.is(response.status, 201);
    filed.push(((await response.json()) as { id: string }).id);
  }
  const page = await browser.newPage();
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

test(titled('a connector-scoped key sees flows but not resources; a resources-scoped key the reverse'), async (t) => {
  const cases = [
    { scope: 'connector', shown: 'Presentation requests', hidden: 'Resources', hiddenPath: '#/resources' },
    { scope: 'resources', shown: 'Resources', hidden: 'Presentation requests', hiddenPath: '#/presentations' },
  ] as const;
  for (const { scope, shown, hidden, hiddenPath } of cases) {
    const key = await keyWith(h.service, [scope]);
    const page = await browser.newPage();
    await signIn(page, key.secret);
    const nav = page.getByRole('navigation');
    t.true(await nav.getByRole('link', { name: shown, exact: true }).isVisible(), `${scope}: ${shown}`);
    t.is(await nav.getByRole('link', { name: hidden, exact: true }).count(), 0, `${scope}: no ${hidden}`);
    t.is(await nav.getByRole('link', { name: 'Identity', exact: true }).count(), 0, `${scope}: no Identity (scope admin)`);
    // Opened by its address, the page says which scope is missing.
    await page.evaluate((hash) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
    }, hiddenPath);
    t.regex((await page.getByRole('alert').textContent()) ?? '', new RegExp(`no \`${scope === 'connector' ? 'resources' : 'connector'}\` scope`));
    // Support requests go with the resource API.
    t.is(await nav.getByRole('link', { name: 'Support requests', exact: true }).count(), scope === 'resources' ? 1 : 0, `${scope}: Support requests`);
    if (scope === 'connector') {
      await page.evaluate(() => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = '#/support-requests';
      });
      await page.getByRole('heading', { level: 1, name: 'Support requests' }).waitFor();
      t.regex((await page.getByRole('alert').textContent()) ?? '', /no `resources` scope/);
      t.is(await page.getByRole('button', { name: 'File request' }).count(), 0);
    }
    await page.close();
  }
});

test(titled('another tenant\'s sessions never appear'), async (t) => {
  const other = await keyWith(h.service, ['connector'], 'console-browser-other');
  const theirs = await h.service.management('/oidc4vp', { method: 'POST', key: other.secret, headers: json, body: JSON.stringify({ dcql_query: pidQuery() }) });
  const theirState = ((await theirs.json()) as { state: string }).state;
  const mine = await h.request({ dcql_query: pidQuery() });
  const page = await browser.newPage();
  await signIn(page);
  await go(page, 'Presentation requests');
  await page.getByRole('link', { name: `${mine.state.slice(0, 12)}…` }).waitFor();
  t.false(((await page.locator('main').textContent()) ?? '').includes(theirState.slice(0, 12)));
  await page.close();
  const theirPage = await browser.newPage();
  await signIn(theirPage, other.secret);
  t.is(await theirPage.locator('#tenant-name').textContent(), 'console-browser-other');
  await go(theirPage, 'Presentation requests');
  await theirPage.getByRole('link', { name: `${theirState.slice(0, 12)}…` }).waitFor();
  t.false(((await theirPage.locator('main').textContent()) ?? '').includes(mine.state.slice(0, 12)));
  await theirPage.close();
});

test(titled('the accessibility check finds what it looks for: a control without a label is a serious violation'), async (t) => {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html lang="en"><head><title>x</title></head><body><main><h1>x</h1><input type="text"></main></body></html>');
  const violations = await seriousViolations(page);
  t.true(violations.some((v) => v.id === 'label'), JSON.stringify(violations));
  await page.close();
});

test(titled('Identity: a pending key\'s CSR copied and certified, a development-chain key activated from the page, a stale activation shown as a conflict, the replaced key shown retired, and the configurations with their history'), async (t) => {
  const s = h.service;
  const tenant = await keyWith(s, ['admin', 'connector'], 'console-identity');
  const asTenant = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
    s.management(path, { key: tenant.secret, method: init.method ?? 'GET', headers: { ...(init.body === undefined ? {} : json), ...init.headers }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  type Key = { id: string; etag: string; data: Record<string, unknown> };
  const made = async (body: unknown): Promise<Key> => {
    const response = await asTenant('/signing-keys', { method: 'POST', body });
    t.is(response.status, 201);
    return (await response.json()) as Key;
  };
  const pending = await made({ role: 'issuer' });
  const developed = await made({ role: 'issuer', development_chain: true });
  const configuration = await asTenant('/credential-configurations', {
    method: 'POST',
    body: { data: { id: 'console-badge', vct: 'https://example.org/console-badge', display: [{ lang: 'en', name: 'Badge' }], claims: [{ path: ['level'], mandatory: true, sd: 'never', display: [{ lang: 'en', name: 'Level' }] }] } },
  });
  t.is(configuration.status, 201);
  const configurationId = ((await configuration.json()) as { id: string }).id;

  const page = await browser.newPage();
  await signIn(page, tenant.secret);
  await go(page, 'Identity');
  const issuerKeys = page.getByRole('region', { name: 'Issuer keys' });
  const rowOf = (id: string) => issuerKeys.getByRole('row').filter({ hasText: id });
  await rowOf(pending.id).waitFor();
  t.regex((await rowOf(pending.id).textContent()) ?? '', /pending.*none yet: certify the CSR/);
  t.regex((await rowOf(developed.id).textContent()) ?? '', /ready.*development CA/);
  await noSeriousViolations(t, page, 'the Identity page');
  await page.getByText('The tenant has no active access key: the deployment\'s serves it.').waitFor();
  await page.getByText('The tenant has no active issuer key: the deployment\'s serves it.').waitFor();

  // The pending key's CSR, as the page shows it, goes to a CA of the test (for 10 days: within the warning).
  const csrField = page.getByLabel(`CSR of the issuer key ${pending.id}`);
  const csr = await csrField.inputValue();
  t.is(csr, String(pending.data['csr']));
  await page.getByRole('button', { name: 'Copy CSR' }).click();
  await page.getByText(/^(Copied\.|Selected: copy it)/).waitFor();
  const ca = await createCertificateAuthority({ commonName: 'Console identity CA', country: 'DE' });
  const request = new x509.Pkcs10CertificateRequest(csr);
  t.true(await request.verify());
  const issuer = tenantCredentialIssuer(s.config.publicUrl, tenant.tenantId);
  const leaf = await certifyPublicKey(
    ca,
    { commonName: 'console identity issuer', country: 'DE', subjectAltNames: [{ type: 'url', value: issuer }, { type: 'dns', value: new URL(issuer).hostname }], notAfter: new Date(Date.now() + 10 * DAY_MS) },
    await request.publicKey.export(EC_P256, ['verify']),
  );
  const certified = await asTenant(`/signing-keys/${pending.id}/certificate`, { method: 'PUT', headers: { 'If-Match': pending.etag }, body: { chain: certificatesToPem([leaf, ca.certificate]) } });
  t.is(certified.status, 200);
  await page.getByRole('button', { name: 'Refresh keys' }).click();
  await rowOf(pending.id).filter({ hasText: 'Console identity CA' }).waitFor();
  t.regex((await rowOf(pending.id).textContent()) ?? '', /ready/);
  t.regex((await page.getByRole('status').filter({ hasText: pending.id }).textContent()) ?? '', /Warning: the certificate of the ready issuer key .* expires on/);

  // The development-chain key activated from the page.
  await rowOf(developed.id).getByRole('button', { name: `Activate ${developed.id.slice(0, 8)}…` }).click();
  await page.getByText(`The issuer key ${developed.id} is active`).waitFor();
  await rowOf(developed.id).filter({ hasText: 'active since' }).waitFor();
  t.is(await page.getByText('The tenant has no active issuer key').count(), 0, 'the tenant\'s own issuer key serves it now');

  // The pending key changes behind the page's back: its activation on the version shown is refused, nothing changes.
  const labelled = await asTenant(`/signing-keys/${pending.id}/labels`, { method: 'PUT', headers: { 'If-Match': (await certified.json() as Key).etag }, body: { labels: { rotation: 'next' } } });
  t.is(labelled.status, 200);
  await rowOf(pending.id).getByRole('button', { name: /^Activate/ }).click();
  t.regex((await page.getByRole('alert').textContent()) ?? '', /Precondition Failed/i);
  await page.getByText('Nothing was changed').waitFor();
  t.is(((await (await asTenant(`/signing-keys/${developed.id}`)).json()) as Key).data['state'], 'active', 'the active key is still the development-chain one');
  await page.getByRole('alert').scrollIntoViewIfNeeded();
  await shoot(page, 'identity-conflict');

  // Refreshed, the activation goes through and retires the key it replaces.
  await page.getByRole('button', { name: 'Refresh keys' }).click();
  await rowOf(pending.id).getByRole('button', { name: /^Activate/ }).click();
  await page.getByText(`The issuer key ${pending.id} is active`).waitFor();
  await rowOf(developed.id).filter({ hasText: `retired` }).waitFor();
  t.regex((await rowOf(developed.id).textContent()) ?? '', new RegExp(`retired .*replaced by ${pending.id.slice(0, 8)}`));
  t.is(await rowOf(developed.id).getByRole('button').count(), 0, 'a retired key has no Activate');
  t.regex((await page.getByRole('status').filter({ hasText: pending.id }).textContent()) ?? '', /Warning: the certificate of the active issuer key/);
  await noSeriousViolations(t, page, 'the Identity page after a rotation');
  await page.getByRole('heading', { level: 3, name: 'Issuer keys' }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
  await shoot(page, 'identity');

  // The dashboard warns of the tenant's active key's certificate.
  await go(page, 'Dashboard');
  await page.getByText(`Warning: the certificate of the tenant's active issuer key ${pending.id} expires on ${leaf.notAfter.toISOString()}.`).waitFor();

  // A configuration's history, on the Resources page, with an admin key that has no `resources` scope.
  await go(page, 'Identity');
  const configurations = page.getByRole('region', { name: 'Credential configurations' });
  t.regex((await configurations.getByRole('row').filter({ hasText: 'console-badge' }).textContent()) ?? '', /dc\+sd-jwt.*https:\/\/example\.org\/console-badge.*1/);
  await configurations.getByRole('link', { name: 'History of console-badge' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  t.true(page.url().endsWith(`#/resources/credential-configurations/${configurationId}`));
  await noSeriousViolations(t, page, 'a credential configuration\'s history');

  // The registration as a relying party, and the settings: each with its revision and history.
  const verifier = (await (await asTenant('/verifier')).json()) as Key;
  t.is((await asTenant('/verifier', { method: 'PUT', headers: { 'If-Match': verifier.etag }, body: { registration_certificate: await registrationCertificate(), enforce_registration: true } })).status, 200);
  await go(page, 'Identity');
  const registration = page.getByRole('region', { name: 'Registration certificate' });
  t.regex((await registration.getByRole('row').nth(1).textContent()) ?? '', /Example Relying Party \(Example GmbH\).*Test registrar signer.*2yes: requests outside it are refused/);
  // The test registrar's certificate holds for a day: within the 30 days.
  await page.getByText('Warning: the registration certificate expires on').waitFor();
  await page.getByText('Registration: revision 2').waitFor();
  await page.getByText('Settings: revision 1').waitFor();
  await noSeriousViolations(t, page, 'the Identity page with a registration');
  await page.getByRole('heading', { level: 2, name: 'Credential configurations' }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
  await shoot(page, 'identity-registration');
  await page.getByRole('link', { name: 'History of the registration' }).click();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  t.deepEqual(await page.getByRole('table', { name: 'Revisions' }).locator('tbody tr td:first-child').allTextContents(), ['1', '2']);
  await page.close();
});
