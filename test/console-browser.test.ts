// The console in a real browser (Debian's Chromium, headless, through playwright-core): sign-in,
// every page with axe-core finding no serious or critical violation, a presentation's timeline
// updating live while the wallet simulator answers, an abandoned callback re-sent, an issued
// credential revoked until a verifier's status check fails, two revisions compared, an If-Match
// conflict shown, scopes and tenants kept apart, and the API key nowhere but in the page's memory.
// The Identity and Support requests pages have files of their own (console-browser-*.test.ts).
// The screenshots are those of docs/console.md (CONSOLE_SCREENSHOTS_DIR=docs/console to refresh).
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createLogger } from '../src/log.js';
import { eventually } from './support/bounded.js';
import { seriousViolations } from './support/browser.js';
import { keyWith } from './support/console.js';
import { consoleBrowserFile, NAVIGATION, test, titled } from './support/consoleBrowser.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { pidQuery } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';
import { answer, fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';

const logLines: string[] = [];
/** Sessions whose callbacks the integrator refuses. */
const refused = new Set<string>();

const c = consoleBrowserFile({ CALLBACK_RETRY_SCHEDULE: '0,50ms' }, { log: createLogger({ level: 'debug', write: (line) => logLines.push(line) }) }, (h) => {
  h.receiver.respond = (request) => ({ status: refused.has(String((JSON.parse(request.body) as { state?: unknown }).state)) ? 500 : 200 });
});

const { consoleUrl, signIn, go, shoot, noSeriousViolations } = c;

test.serial(titled('signed in with an API key: the tenant and scopes shown, each page under its heading and link, axe-core finds nothing serious, and the key is only in memory'), async (t) => {
  const page = await c.browser.newPage();
  const urls: string[] = [];
  let authorized = 0;
  page.on('request', (request) => {
    urls.push(request.url());
    if (request.headers()['authorization'] === `Bearer ${BOOTSTRAP_KEY}`) authorized += 1;
  });
  // A few flows, so that the pages have something to show.
  const { created, request } = await c.h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await answer(c.h.endpoints, request, { pid: { credential: await c.h.pid(), holder: c.h.holder } })).status, 200);
  await c.h.callback(created.state);
  await c.h.request({ dcql_query: pidQuery() });

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
  t.false(JSON.stringify(await c.browser.context.cookies()).includes(BOOTSTRAP_KEY), 'never in a cookie');
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
  const page = await c.browser.newPage();
  await page.goto(consoleUrl());
  await page.getByLabel('API key').fill('not-a-key-of-this-service-0123456789');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex((await alert.textContent()) ?? '', /Unauthorized.*unknown, expired or revoked/);
  await page.close();
});

test(titled('at 360 px wide every page fits without scrolling sideways'), async (t) => {
  const page = await c.browser.newPage(360);
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
  const page = await c.browser.newPage();
  await signIn(page);
  const created = await c.h.request({ dcql_query: pidQuery() });
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
  const request = await fetchAuthorizationRequest(c.h.endpoints, created.cross_device_request_uri);
  await page.getByText('PresentationRequestFetched').waitFor();
  t.is((await answer(c.h.endpoints, request, { pid: { credential: await c.h.pid(), holder: c.h.holder } })).status, 200);
  await page.getByText('PresentationFulfilled').waitFor();
  t.true(await page.evaluate(() => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage === true), 'no reload');
  const text = (await page.locator('main').textContent()) ?? '';
  t.regex(text, /No claim value is ever shown/);
  t.false(text.includes('Erika') || text.includes('Mustermann'), 'no claim value');
  t.regex(text, /\[sealed: not shown\]/);
  // Its callback, with its attempt, under the timeline.
  await c.h.callback(created.state);
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
  const { created, request } = await c.h.requestAndFetch({ dcql_query: pidQuery() });
  refused.add(created.state);
  t.is((await postResponse(c.h.endpoints, request, { error: 'access_denied', state: created.state })).status, 200);
  const stateOf = async (): Promise<string | undefined> => {
    const page = (await (await c.h.service.management('/console/api/deliveries?limit=100')).json()) as { items: { event_id: string; state: string }[] };
    return page.items.find((d) => d.event_id === created.state)?.state;
  };
  t.true(await eventually(async () => (await stateOf()) === 'abandoned'));
  refused.delete(created.state);
  const page = await c.browser.newPage();
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
  const s = c.h.service;
  const offer = await createOffer(s, { credential_configuration_id: 'membership', claims: { member_number: 'M-7', given_name: 'Erika', family_name: 'Mustermann' } });
  const wallet = await IssuanceWallet.create(s.config.publicUrl, s.service.publicListenUrl);
  const credential = await wallet.receive(offer.credential_offer_uri);
  await waitForOffer(s, offer.offer_id, (b) => b.status === 'ISSUED');
  await verifyIssuedCredential(s, credential);
  const page = await c.browser.newPage();
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
  const s = c.h.service;
  const created = await s.management('/schemas', { method: 'POST', headers: json, body: JSON.stringify({ data: { slug: 'console-member', version: '1', schema: { type: 'object', properties: { name: { type: 'string' } } } } }) });
  t.is(created.status, 201);
  const schema = (await created.json()) as { id: string; etag: string };
  let etag = schema.etag;
  for (const labels of [{ team: 'blue' }, { team: 'green', tier: 'gold' }]) {
    const put = await s.management(`/schemas/${schema.id}/labels`, { method: 'PUT', headers: { ...json, 'If-Match': etag }, body: JSON.stringify({ labels }) });
    t.is(put.status, 200);
    etag = put.headers.get('etag')!;
  }
  const page = await c.browser.newPage();
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
test(titled('a connector-scoped key sees flows but not resources; a resources-scoped key the reverse'), async (t) => {
  const cases = [
    { scope: 'connector', shown: 'Presentation requests', hidden: 'Resources', hiddenPath: '#/resources' },
    { scope: 'resources', shown: 'Resources', hidden: 'Presentation requests', hiddenPath: '#/presentations' },
  ] as const;
  for (const { scope, shown, hidden, hiddenPath } of cases) {
    const key = await keyWith(c.h.service, [scope]);
    const page = await c.browser.newPage();
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
  const other = await keyWith(c.h.service, ['connector'], 'console-browser-other');
  const theirs = await c.h.service.management('/oidc4vp', { method: 'POST', key: other.secret, headers: json, body: JSON.stringify({ dcql_query: pidQuery() }) });
  const theirState = ((await theirs.json()) as { state: string }).state;
  const mine = await c.h.request({ dcql_query: pidQuery() });
  const page = await c.browser.newPage();
  await signIn(page);
  await go(page, 'Presentation requests');
  await page.getByRole('link', { name: `${mine.state.slice(0, 12)}…` }).waitFor();
  t.false(((await page.locator('main').textContent()) ?? '').includes(theirState.slice(0, 12)));
  await page.close();
  const theirPage = await c.browser.newPage();
  await signIn(theirPage, other.secret);
  t.is(await theirPage.locator('#tenant-name').textContent(), 'console-browser-other');
  await go(theirPage, 'Presentation requests');
  await theirPage.getByRole('link', { name: `${theirState.slice(0, 12)}…` }).waitFor();
  t.false(((await theirPage.locator('main').textContent()) ?? '').includes(mine.state.slice(0, 12)));
  await theirPage.close();
});

test(titled('the accessibility check finds what it looks for: a control without a label is a serious violation'), async (t) => {
  const page = await c.browser.newPage();
  await page.setContent('<!doctype html><html lang="en"><head><title>x</title></head><body><main><h1>x</h1><input type="text"></main></body></html>');
  const violations = await seriousViolations(page);
  t.true(violations.some((v) => v.id === 'label'), JSON.stringify(violations));
  await page.close();
});
