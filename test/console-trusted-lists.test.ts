// The console's Trusted lists over real signed lists (a LoTL pointing to national lists and a
// List of Trusted Entities, served on loopback): each list's state, sequence number, digest and
// the services it yields per category, over HTTP and on the page in Chromium.
import anyTest, { type TestFn } from 'ava';
import { join } from 'node:path';
import { chromiumMissing, launchBrowser, screenshotDirectory, seriousViolations } from './support/browser.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { startTrustWorld, type TrustWorld } from './support/trustListWorld.js';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';

const test = anyTest as TestFn;

let world: TrustWorld;
let h: VerificationHarness;

test.before(async () => {
  world = await startTrustWorld();
  await world.publish();
  h = await startVerificationHarness({ X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: world.sources });
});

test.after.always(async () => {
  await h?.close();
  await world?.close();
});

interface Lists {
  mode: string;
  lists: { source: string; url: string; state: string; sequenceNumber?: number; digest?: string; entities?: Record<string, number> }[];
}

test('each followed list shows its state, sequence number, digest and services per category', async (t) => {
  const response = await h.service.management('/console/api/trusted-lists');
  t.is(response.status, 200);
  const body = (await response.json()) as Lists;
  t.is(body.mode, 'lists');
  const urls = body.lists.map((l) => l.url);
  for (const url of [world.urls.lotl, world.urls.de]) t.true(urls.includes(url), url);
  for (const list of body.lists) {
    t.is(list.state, 'current', list.url);
    t.true(Number.isInteger(list.sequenceNumber));
    t.regex(list.digest ?? '', /^[0-9a-f]{64}$/);
  }
  // The German list names the QEAA providers; the LoTE of PID providers the PID providers.
  const german = body.lists.find((l) => l.url === world.urls.de)!;
  t.true((german.entities?.['QEAA'] ?? 0) >= 1, JSON.stringify(german.entities));
  t.true(body.lists.some((l) => (l.entities?.['PID'] ?? 0) >= 1), JSON.stringify(body.lists.map((l) => l.entities)));
});

(chromiumMissing ? test.skip : test)(
  chromiumMissing ? `the Trusted lists page shows them (skipped: ${chromiumMissing})` : 'the Trusted lists page shows them, and axe-core finds nothing serious',
  async (t) => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${h.service.service.managementUrl}/console/`);
      await page.getByLabel('API key').fill(BOOTSTRAP_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation').getByRole('link', { name: 'Trusted lists', exact: true }).click();
      const lists = page.getByRole('table', { name: 'Trusted lists' });
      await lists.getByRole('row').filter({ hasText: world.urls.de }).waitFor();
      t.regex((await lists.getByRole('row').filter({ hasText: world.urls.de }).textContent()) ?? '', /current.*QEAA: \d+/);
      t.deepEqual(await seriousViolations(page), []);
      await page.screenshot({ path: join(await screenshotDirectory(), 'trusted-lists.png') });
    } finally {
      await browser.close();
    }
  },
);
