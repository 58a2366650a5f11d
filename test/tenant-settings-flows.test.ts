// Effective settings end to end, through a real presentation with a wallet: the bootstrap tenant's
// `default_redirect_uri` overrides DEFAULT_REDIRECT_URI and its `callback_url` / `callback_secret`
// override CALLBACK_URL / CALLBACK_SECRET; unset again, the environment's apply.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { hasValidSignature, startReceiver, TEST_WEBHOOK_SECRET, type Receiver } from './support/receiver.js';
import { pidQuery, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer } from './support/wallet/presentation.js';

const ENVIRONMENT_REDIRECT = 'https://rp.example/from-environment';
const TENANT_REDIRECT = 'https://tenant.example/after-wallet';
const TENANT_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

let h: VerificationHarness;
let tenantReceiver: Receiver;
test.before(async () => {
  [h, tenantReceiver] = await Promise.all([startVerificationHarness({ DEFAULT_REDIRECT_URI: ENVIRONMENT_REDIRECT }), startReceiver()]);
});
test.after.always(async () => {
  await Promise.all([h?.close(), tenantReceiver?.close()]);
});

const putSettings = async (body: unknown): Promise<void> => {
  const current = await h.service.management('/settings');
  const response = await h.service.management('/settings', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', 'If-Match': current.headers.get('etag')! },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`PUT /settings answered ${response.status}: ${await response.text()}`);
};

/** A same-device presentation to its end: where the wallet is redirected, and the request's state. */
const present = async (): Promise<{ redirect: string; state: string }> => {
  const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery() }, 'same-device');
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder } });
  const redirect = new URL(posted.body['redirect_uri'] as string);
  return { redirect: `${redirect.origin}${redirect.pathname}`, state: created.state };
};

const deliveredTo = (receiver: Receiver, state: string) => receiver.received.filter((r) => (JSON.parse(r.body) as { state?: string }).state === state);

test.serial('unset, the environment applies: DEFAULT_REDIRECT_URI and CALLBACK_URL signed with CALLBACK_SECRET', async (t) => {
  const { redirect, state } = await present();
  t.is(redirect, ENVIRONMENT_REDIRECT);
  await h.callback(state);
  t.true(hasValidSignature(TEST_WEBHOOK_SECRET, deliveredTo(h.receiver, state)[0]!));
  t.is(deliveredTo(tenantReceiver, state).length, 0);
});

test.serial("set, the tenant's apply: its default_redirect_uri, and its callback_url signed with its callback_secret", async (t) => {
  await putSettings({ default_redirect_uri: TENANT_REDIRECT, callback_url: tenantReceiver.url, callback_secret: TENANT_SECRET });
  const { redirect, state } = await present();
  t.is(redirect, TENANT_REDIRECT);
  t.true(await tenantReceiver.until(() => deliveredTo(tenantReceiver, state).length > 0));
  const delivered = deliveredTo(tenantReceiver, state)[0]!;
  t.true(hasValidSignature(TENANT_SECRET, delivered));
  t.false(hasValidSignature(TEST_WEBHOOK_SECRET, delivered));
  t.is(deliveredTo(h.receiver, state).length, 0, 'nothing to the environment\'s receiver');
});

test.serial('unset again, the environment applies again', async (t) => {
  await putSettings({});
  const { redirect, state } = await present();
  t.is(redirect, ENVIRONMENT_REDIRECT);
  await h.callback(state);
  t.is(deliveredTo(tenantReceiver, state).length, 0);
});
