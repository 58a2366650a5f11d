// The console's Identity page in a real browser (Debian's Chromium, headless, through
// playwright-core): a tenant's signing keys by role (a pending key's CSR certified outside, a
// development-chain key activated from the page, a stale activation shown as a conflict, the
// replaced key retired), its credential configurations with their history, its registration and
// settings, and the dashboard's warning for its active key's certificate; axe-core at each step.
// The screenshots are those of docs/console.md (CONSOLE_SCREENSHOTS_DIR=docs/console to refresh).
import { certificatesToPem, certifyPublicKey, createCertificateAuthority, DAY_MS, EC_P256 } from '../src/crypto/certificates.js';
import { x509 } from '../src/crypto/x509.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { keyWith } from './support/console.js';
import { consoleBrowserFile, test, titled } from './support/consoleBrowser.js';
import { registrationCertificate } from './support/registrationCertificate.js';

const c = consoleBrowserFile();
const { signIn, go, shoot, noSeriousViolations } = c;
const json = { 'Content-Type': 'application/json' };

test(titled('Identity: a pending key\'s CSR copied and certified, a development-chain key activated from the page, a stale activation shown as a conflict, the replaced key shown retired, and the configurations with their history'), async (t) => {
  const s = c.h.service;
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

  const page = await c.browser.newPage();
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
