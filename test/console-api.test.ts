// The console's HTTP side: its static files on the management listener only, with a strict
// Content-Security-Policy; its JSON routes' pagination, scopes, tenant isolation, the auditor's
// stream without sealed values, and the live view fed by the store subscription.
import { webcrypto } from 'node:crypto';
import test from 'ava';
import { certificatesToPem, certifyPublicKey, createCertificateAuthority, DAY_MS, EC_P256 } from '../src/crypto/certificates.js';
import { presentationStream } from '../streams/presentation.js';
import { eventually } from './support/bounded.js';
import { keyWith, serverSentEvents } from './support/console.js';
import { registrationCertificate } from './support/registrationCertificate.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer, fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';

let h: VerificationHarness;

/** Sessions whose callbacks the integrator refuses until the test says otherwise. */
const refused = new Set<string>();

test.before(async () => {
  // Two attempts, close together: a refused callback is abandoned in a moment.
  h = await startVerificationHarness({ CALLBACK_RETRY_SCHEDULE: '0,50ms' });
  h.receiver.respond = (request) => ({ status: refused.has(String((JSON.parse(request.body) as { state?: unknown }).state)) ? 500 : 200 });
});

test.after.always(async () => {
  await h?.close();
});

const json = async <T = Record<string, unknown>>(response: Response): Promise<T> => (await response.json()) as T;

test('the console page is served on the management listener without a key, with a strict CSP and no framing', async (t) => {
  const page = await fetch(`${h.service.service.managementUrl}/console/`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.true(csp.includes("script-src 'self'"));
  t.true(csp.includes("style-src 'self'"));
  t.true(csp.includes("frame-ancestors 'none'"));
  t.false(csp.includes('unsafe-inline'));
  t.is(page.headers.get('x-frame-options'), 'DENY');
  const html = await page.text();
  t.notRegex(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  t.notRegex(html, /<style|style=/, 'no inline style');
  t.notRegex(html, /https?:\/\//, 'nothing from elsewhere');
  const script = await fetch(`${h.service.service.managementUrl}/console/main.js`);
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /^text\/javascript/);
});

test('the console is not on the public listener, and a file it does not have is 404', async (t) => {
  t.is((await fetch(`${h.service.service.publicListenUrl}/console/`)).status, 404);
  t.is((await fetch(`${h.service.service.publicListenUrl}/console/main.js`)).status, 404);
  const missing = await fetch(`${h.service.service.managementUrl}/console/..%2Fpackage.json`);
  t.is(missing.status, 404);
});

test('the console routes need a key', async (t) => {
  t.is((await h.service.management('/console/api/presentations', { key: null })).status, 401);
  t.is((await h.service.management('/console/api/streams/presentation-x', { key: null })).status, 401);
});

test('presentation requests are listed newest first, a page at a time, without another tenant\'s', async (t) => {
  const other = await keyWith(h.service, ['connector'], 'console-other');
  const theirs = await h.service.management('/oidc4vp', { method: 'POST', key: other.secret, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ dcql_query: pidQuery() }) });
  t.is(theirs.status, 201);
  const theirState = (await json<{ state: string }>(theirs)).state;
  const mine = [];
  for (let i = 0; i < 3; i += 1) mine.push((await h.request({ dcql_query: pidQuery() })).state);
  const seen: string[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const response = await h.service.management(`/console/api/presentations?limit=2${after ? `&after=${after}` : ''}`);
    t.is(response.status, 200);
    const page: { items: { state: string; status: string; created_at: string }[]; next: string | null } = await json(response);
    t.true(page.items.length <= 2);
    seen.push(...page.items.map((p) => p.state));
    after = page.next;
    pages += 1;
  } while (after !== null && pages < 10);
  for (const state of mine) t.true(seen.includes(state));
  t.false(seen.includes(theirState), 'another tenant\'s session never appears');
  t.is(new Set(seen).size, seen.length, 'no session on two pages');
  t.true(pages >= 2);
  const open = await json<{ items: { status: string }[] }>(await h.service.management('/console/api/presentations?status=OPEN&limit=100'));
  t.true(open.items.every((p) => p.status === 'OPEN'));
  // The other tenant sees its own and none of ours.
  const theirList = await json<{ items: { state: string }[] }>(await h.service.management('/console/api/presentations', { key: other.secret }));
  t.deepEqual(theirList.items.map((p) => p.state), [theirState]);
});

test('bad list parameters are refused with each one named', async (t) => {
  const response = await h.service.management('/console/api/presentations?limit=0&after=nonsense&status=DONE&from=yesterday');
  t.is(response.status, 400);
  const problem = await json<{ title: string; errors: { location: string }[] }>(response);
  t.is(problem.title, 'Invalid request');
  t.deepEqual(problem.errors.map((e) => e.location).sort(), ['query.after', 'query.from', 'query.limit', 'query.status']);
});

test('a resources-only key sees no flows; a connector-only key sees flows but no resource stream', async (t) => {
  const resources = await keyWith(h.service, ['resources']);
  t.is((await h.service.management('/console/api/presentations', { key: resources.secret })).status, 403);
  t.is((await h.service.management('/console/api/deliveries', { key: resources.secret })).status, 403);
  const { state } = await h.request({ dcql_query: pidQuery() });
  t.is((await h.service.management(`/console/api/streams/presentation-${state}`, { key: resources.secret })).status, 404);
  const connector = await keyWith(h.service, ['connector']);
  t.is((await h.service.management(`/console/api/streams/presentation-${state}`, { key: connector.secret })).status, 200);
  t.is((await h.service.management('/console/api/presentations', { key: connector.secret })).status, 200);
  const schema = await h.service.management('/schemas/search', { method: 'POST', key: connector.secret, headers: { 'Content-Type': 'application/json' }, body: '{}' });
  t.is(schema.status, 403);
  t.is((await h.service.management(`/console/api/streams/apikey-00000000-0000-4000-8000-000000000001`, { key: connector.secret })).status, 404);
});

test('another tenant\'s stream is 404, like one that does not exist', async (t) => {
  const { state } = await h.request({ dcql_query: pidQuery() });
  const other = await keyWith(h.service, ['connector', 'resources', 'admin'], 'console-prying');
  t.is((await h.service.management(`/console/api/streams/presentation-${state}`, { key: other.secret })).status, 404);
  t.is((await h.service.management(`/console/api/streams/presentation-${state}/live`, { key: other.secret })).status, 404);
  t.is((await h.service.management('/console/api/streams/presentation-nothing-here')).status, 404);
  t.is((await h.service.management('/console/api/streams/tenant-00000000-0000-4000-8000-000000000001')).status, 404, 'a category the console does not show');
});

test('the auditor\'s stream shows every event with its metadata and no sealed value', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  await h.callback(created.state);
  const response = await h.service.management(`/console/api/streams/presentation-${created.state}`);
  t.is(response.status, 200);
  const body = await json<{ notice: string; events: { type: string; metadata: { actor?: string; command?: string }; data: Record<string, unknown> }[] }>(response);
  t.deepEqual(body.events.map((e) => e.type), ['PresentationRequested', 'PresentationRequestFetched', 'PresentationFulfilled']);
  t.regex(body.notice, /never shown/);
  t.regex(body.events[0]!.metadata.actor ?? '', /^apikey:/);
  t.is(body.events[2]!.metadata.actor, 'wallet');
  t.deepEqual(body.events.map((e) => e.metadata.command), ['RequestPresentation', 'FetchRequestObject', 'Fulfil'], 'which command each answers');
  const text = JSON.stringify(body);
  t.false(text.includes('ciphertext'), 'no sealed value, not even encrypted');
  t.false(text.includes('Erika') || text.includes('Mustermann'), 'no claim value');
  t.is(body.events[2]!.data['presentedCredentials'], '[sealed: not shown]');
  const read = await h.service.service.store.readStream(presentationStream(created.state));
  t.is(read._tag === 'Found' ? read.events.length : 0, body.events.length);
});

test('the live view sends the stream so far, then each event as the wallet acts', async (t) => {
  const created = await h.request({ dcql_query: pidQuery() });
  const controller = new AbortController();
  const response = await fetch(`${h.service.service.managementUrl}/console/api/streams/presentation-${created.state}/live`, {
    headers: { Authorization: `Bearer ${BOOTSTRAP_KEY}` },
    signal: controller.signal,
  });
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = serverSentEvents(response);
  t.is((await events.next()).value?.['type'], 'PresentationRequested');
  const request = await fetchAuthorizationRequest(h.endpoints, created.cross_device_request_uri);
  t.is((await events.next()).value?.['type'], 'PresentationRequestFetched');
  t.is((await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  const terminal = (await events.next()).value;
  t.is(terminal?.['type'], 'PresentationFulfilled');
  t.false(JSON.stringify(terminal).includes('ciphertext'));
  controller.abort();
});

type DeliveryPage = { items: { delivery_id: string; event_id: string; state: string; attempt_log: { outcome: string }[] }[] };

const deliveryOf = async (state: string) =>
  (await json<DeliveryPage>(await h.service.management('/console/api/deliveries?limit=100'))).items.find((d) => d.event_id === state);

test('an abandoned callback is re-sent from the console and delivered; a delivered one is not re-sent', async (t) => {
  // A refusal by the user: its callback carries no credentials, so it can be re-sent after it was abandoned.
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  refused.add(created.state);
  t.is((await postResponse(h.endpoints, request, { error: 'access_denied', state: created.state })).status, 200);
  t.true(await eventually(async () => (await deliveryOf(created.state))?.state === 'abandoned'), 'the refused callback is abandoned');
  const abandoned = (await deliveryOf(created.state))!;
  t.deepEqual(abandoned.attempt_log.map((a) => a.outcome), ['http_status', 'http_status']);
  const other = await keyWith(h.service, ['connector'], 'console-resender');
  t.is((await h.service.management(`/console/api/deliveries/${abandoned.delivery_id}/resend`, { method: 'POST', key: other.secret })).status, 404, 'not another tenant\'s');
  refused.delete(created.state);
  const resent = await h.service.management(`/console/api/deliveries/${abandoned.delivery_id}/resend`, { method: 'POST' });
  t.is(resent.status, 202);
  t.true(await eventually(async () => (await deliveryOf(created.state))?.state === 'delivered'), 'the re-sent callback is delivered');
  const ofFlow = await json<DeliveryPage>(await h.service.management(`/console/api/deliveries?flow=presentation-${created.state}`));
  t.deepEqual(ofFlow.items.map((d) => d.delivery_id), [abandoned.delivery_id], 'a flow\'s own deliveries');
  t.deepEqual(ofFlow.items[0]!.attempt_log.map((a) => a.outcome), ['http_status', 'http_status', 'delivered']);
  const again = await h.service.management(`/console/api/deliveries/${abandoned.delivery_id}/resend`, { method: 'POST' });
  t.is(again.status, 409);
  t.regex((await json<{ detail: string }>(again)).detail, /abandoned/);
});

test('the dashboard counts outcomes per minute and names the certificates the connector presents with their expiry', async (t) => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  t.is((await postResponse(h.endpoints, request, { error: 'access_denied', state: created.state })).status, 200);
  await h.callback(created.state);
  const response = await h.service.management('/console/api/dashboard');
  t.is(response.status, 200);
  const body = await json<{
    now: string;
    presentations_last_hour: { bucket: string; status: string; count: number }[];
    certificates: { role: string; not_after: string; expires_soon: boolean }[];
  }>(response);
  t.true(body.presentations_last_hour.some((c) => c.status === 'REJECTED' && c.count >= 1 && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(c.bucket)));
  t.deepEqual(body.certificates.map((c) => c.role).sort(), ['access', 'issuer'], 'the deployment\'s: the bootstrap tenant has no key of its own');
  for (const c of body.certificates) t.is(c.expires_soon, Date.parse(c.not_after) - Date.parse(body.now) < 30 * 86_400_000);
  const resourcesOnly = await keyWith(h.service, ['resources']);
  t.is((await h.service.management('/console/api/dashboard', { key: resourcesOnly.secret })).status, 403);
});

/** A signing key made over the API in the tenant of `key`. */
const makeSigningKey = async (key: string, body: Record<string, unknown>): Promise<{ id: string; etag: string; data: Record<string, unknown> }> => {
  const response = await h.service.management('/signing-keys', { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST /signing-keys: ${response.status} ${await response.text()}`);
  return json(response);
};

test('the Identity page\'s keys: each with its state, its certificate\'s subject, issuer and validity, warned within 30 days, only the tenant\'s, scope admin', async (t) => {
  const mine = await keyWith(h.service, ['admin', 'connector'], 'identity-keys');
  const theirs = await keyWith(h.service, ['admin'], 'identity-keys-other');
  const pending = await makeSigningKey(mine.secret, { role: 'issuer' });
  const developed = await makeSigningKey(mine.secret, { role: 'issuer', development_chain: true });
  const shortLived = await makeSigningKey(mine.secret, { role: 'access' });
  const other = await makeSigningKey(theirs.secret, { role: 'access', development_chain: true });
  // A CA of the test certifies the access key for 10 days: within the warning.
  const ca = await createCertificateAuthority({ commonName: 'Console test CA', country: 'DE' });
  const publicKey = await webcrypto.subtle.importKey('jwk', shortLived.data['public_jwk'] as webcrypto.JsonWebKey, EC_P256, true, ['verify']);
  const leaf = await certifyPublicKey(ca, { commonName: 'short-lived access', country: 'DE', notAfter: new Date(Date.now() + 10 * DAY_MS) }, publicKey);
  const certified = await h.service.management(`/signing-keys/${shortLived.id}/certificate`, {
    method: 'PUT', key: mine.secret, headers: { 'Content-Type': 'application/json', 'If-Match': shortLived.etag }, body: JSON.stringify({ chain: certificatesToPem([leaf, ca.certificate]) }),
  });
  t.is(certified.status, 200);
  const activated = await h.service.management(`/signing-keys/${shortLived.id}/activate`, { method: 'POST', key: mine.secret, headers: { 'If-Match': (await json<{ etag: string }>(certified)).etag } });
  t.is(activated.status, 200);

  const response = await h.service.management('/console/api/signing-keys', { key: mine.secret });
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  type Shown = { id: string; etag: string; role: string; state: string; csr: string | null; certificate: { subject: string; issuer: string; not_before: string; not_after: string; expires_soon: boolean } | null };
  const { items } = await json<{ items: Shown[] }>(response);
  t.deepEqual(items.map((k) => k.id), [pending.id, developed.id, shortLived.id], 'the tenant\'s keys, oldest first, not another tenant\'s');
  t.false(items.some((k) => k.id === other.id));
  const [p, d, s] = items as [Shown, Shown, Shown];
  t.like(p, { role: 'issuer', state: 'pending', certificate: null, csr: pending.data['csr'] as string });
  t.like(d, { role: 'issuer', state: 'ready' });
  t.regex(d.certificate?.subject ?? '', /issuer/);
  t.regex(d.certificate?.issuer ?? '', /development CA/);
  t.false(d.certificate?.expires_soon);
  t.like(s, { role: 'access', state: 'active', certificate: { subject: leaf.subject, issuer: ca.certificate.subject, expires_soon: true } });
  t.regex(leaf.subject, /short-lived access/);
  t.is(s.certificate?.not_after, leaf.notAfter.toISOString());
  t.is<string | null, string | null>(s.etag, activated.headers.get('etag'), 'the etag an activation needs');
  t.false(JSON.stringify(items).includes('sealedKey'), 'never the key\'s material');

  // The dashboard warns of the tenant's active key's certificate beside the deployment's.
  const dashboard = await json<{ certificates: { role: string; owner: string; key_id?: string; expires_soon: boolean }[] }>(await h.service.management('/console/api/dashboard', { key: mine.secret }));
  t.deepEqual(dashboard.certificates.filter((c) => c.owner === 'tenant'), [{ role: 'access', owner: 'tenant', key_id: shortLived.id, subject: leaf.subject, not_after: leaf.notAfter.toISOString(), expires_soon: true }] as unknown as typeof dashboard.certificates);
  t.deepEqual(dashboard.certificates.filter((c) => c.owner === 'deployment').map((c) => c.role).sort(), ['access', 'issuer']);

  const connectorOnly = await keyWith(h.service, ['connector']);
  t.is((await h.service.management('/console/api/signing-keys', { key: connectorOnly.secret })).status, 403);
  t.is((await h.service.management('/console/api/signing-keys', { key: null })).status, 401);
});

test('the Identity page\'s registration: null until PUT /verifier, then whom the certificate registers, who signed it, until when (warned within 30 days), whether enforced; scope admin', async (t) => {
  const mine = await keyWith(h.service, ['admin'], 'identity-registration');
  const read = async () => json<{ registration: Record<string, unknown> | null }>(await h.service.management('/console/api/registration', { key: mine.secret }));
  t.deepEqual(await read(), { registration: null });
  const exp = Math.floor(Date.now() / 1000) + 5 * 86_400;
  const jwt = await registrationCertificate({ exp });
  const verifier = await json<{ etag: string }>(await h.service.management('/verifier', { key: mine.secret }));
  const put = await h.service.management('/verifier', {
    method: 'PUT', key: mine.secret, headers: { 'Content-Type': 'application/json', 'If-Match': verifier.etag }, body: JSON.stringify({ registration_certificate: jwt, enforce_registration: true }),
  });
  t.is(put.status, 200);
  const { registration } = await read();
  t.like(registration, { enforce_registration: true, subject: 'Example GmbH', name: 'Example Relying Party', not_after: new Date(exp * 1000).toISOString(), expires_soon: true, credentials: 2 });
  t.regex(String(registration?.['signer']), /Test registrar signer/);
  // Another tenant has none; a key without `admin` reads nothing.
  const other = await keyWith(h.service, ['admin'], 'identity-registration-other');
  t.deepEqual(await json(await h.service.management('/console/api/registration', { key: other.secret })), { registration: null });
  const connectorOnly = await keyWith(h.service, ['connector']);
  t.is((await h.service.management('/console/api/registration', { key: connectorOnly.secret })).status, 403);
});
