// A callback URL a tenant sets itself (`PUT /settings`) is a URL others chose: with
// EGRESS_ALLOW_PRIVATE_NETWORKS off, its host is resolved at every attempt and an address that is
// not public is refused, nothing sent (src/callbacks/post.ts through src/egress/). The same URL set
// by the operator (`ops callbacks set`) is posted to as configured, as CALLBACK_URL is; the
// operator's approval holds while the tenant keeps that URL, and ends when it names another.
import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { configureTenantCallback } from '../src/callbacks/tenantCallback.js';
import { isPublicAddress } from '../src/egress/publicAddress.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { eventually } from './support/bounded.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';

// The machine's own name, which resolves to an address of this machine (loopback or a private
// network): a host name, so no check of a literal address at `PUT /settings` can catch it.
const HOST = hostname();
const privateHost = await lookup(HOST, { all: true }).then((found) => found.length > 0 && found.every((a) => !isPublicAddress(a.address)), () => false);
const test = (privateHost ? anyTest : anyTest.skip) as TestFn;
const titled = (title: string): string => (privateHost ? title : `${title} (skipped: ${HOST} does not resolve to this machine's private addresses only)`);

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let h: VerificationHarness;
let receiver: Receiver;
let url: string;

anyTest.before(async () => {
  [h, receiver] = await Promise.all([startVerificationHarness({ EGRESS_ALLOW_PRIVATE_NETWORKS: 'false', CALLBACK_RETRY_SCHEDULE: '0,10s' }), startReceiver()]);
  const listening = new URL(receiver.url);
  url = `http://${HOST}:${listening.port}${listening.pathname}`;
});
anyTest.after.always(async () => {
  await Promise.all([h?.close(), receiver?.close()]);
});

const putSettings = async (body: unknown): Promise<void> => {
  const current = await h.service.management('/settings');
  const response = await h.service.management('/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'If-Match': current.headers.get('etag')! }, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`PUT /settings answered ${response.status}: ${await response.text()}`);
};

/** A presentation to its end; its state. */
const present = async (): Promise<string> => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() });
  await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  return created.state;
};

const deliveredTo = (state: string) => receiver.received.filter((r) => (JSON.parse(r.body) as { state?: string }).state === state);

/** The outcomes of the delivery of `state`'s callback so far. */
const attemptsOf = async (state: string): Promise<string[]> => {
  const page = (await (await h.service.management('/console/api/deliveries?limit=100')).json()) as { items: { event_id: string; attempt_log: { outcome: string; detail: string | null }[] }[] };
  return page.items.find((d) => d.event_id === state)?.attempt_log.map((a) => `${a.outcome}: ${a.detail ?? ''}`) ?? [];
};

test.serial(titled('a callback URL the tenant set, whose host resolves to a private address, is refused at delivery and nothing is sent'), async (t) => {
  await putSettings({ callback_url: url, callback_secret: SECRET });
  const state = await present();
  t.true(await eventually(async () => (await attemptsOf(state)).length > 0));
  const [attempt] = await attemptsOf(state);
  t.regex(attempt!, /^endpoint_refused: the callback URL .*(private|reserved)/);
  t.is(deliveredTo(state).length, 0, 'the receiver saw no request');
});

test.serial(titled("the same URL set by the operator is delivered to; the tenant's change of another setting keeps the approval, a new URL ends it"), async (t) => {
  const configured = await configureTenantCallback(h.service.service.store, h.service.service.context.kek, { tenantId: BOOTSTRAP_TENANT_ID, url, secret: SECRET }, { actor: 'ops' });
  t.true(configured._tag === 'Right');
  if (configured._tag === 'Right' && configured.right.position) await h.service.service.runner.waitFor(configured.right.position, 5000);
  const settings = (await (await h.service.management('/settings')).json()) as { data: Record<string, unknown> };
  t.is(settings.data['callback_url_chosen_by'], 'operator');
  const first = await present();
  t.true(await receiver.until(() => deliveredTo(first).length > 0), 'delivered to the operator\'s choice');

  await putSettings({ callback_url: url, default_redirect_uri: 'https://rp.example/after' });
  const second = await present();
  t.true(await receiver.until(() => deliveredTo(second).length > 0), 'the tenant kept the URL: still the operator\'s choice');

  await putSettings({ callback_url: `${url}other`, callback_secret: SECRET });
  t.is(((await (await h.service.management('/settings')).json()) as { data: Record<string, unknown> }).data['callback_url_chosen_by'], undefined);
  const third = await present();
  t.true(await eventually(async () => (await attemptsOf(third)).length > 0));
  t.regex((await attemptsOf(third))[0]!, /^endpoint_refused/);
  t.is(deliveredTo(third).length, 0);
});
