// `/settings`: the tenant's settings, over HTTP. They exist from the tenant's creation (revision 1,
// nothing set), every PUT needs If-Match, each member is read as the environment variable it
// overrides (its message naming the member), the callback secret is never answered back, and a
// tenant's settings are its own. Effective settings: the tenant's value, else the environment's.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { SETTINGS_MEMBERS, settingsStream } from '../streams/tenantSettings.js';
import { configVariableNames } from '../src/config/config.js';
import { createCertificateAuthority, x5cOf } from '../src/crypto/certificates.js';
import { SETTING_VARIABLES } from '../src/tenantIdentity/settings.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { blobDirectory, sealedBlobStore } from '../src/blobStore.js';
import { buildTenantExport } from '../src/resources/tenantExport.js';
import { startTestService, type TestService } from './support/service.js';
import { newTenant } from './support/tenants.js';
import { PID_CLAIMS } from './support/wallet/issuanceChecks.js';

type Envelope = { id: string; revision: number; etag: string; data: Record<string, unknown> };
type Problem = { detail: string; errors: { location: string; message: string; value?: unknown }[] };

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let s: TestService;
test.before(async () => {
  s = await startTestService({ env: { OFFER_TTL_SECONDS: '300', WALLET_ATTESTATION: 'optional', EGRESS_ALLOW_PRIVATE_NETWORKS: 'false' } });
});
test.after.always(async () => {
  await s?.cleanup();
});

const put = (key: string, body: unknown, ifMatch?: string) =>
  s.management('/settings', { key, method: 'PUT', headers: { 'Content-Type': 'application/json', ...(ifMatch ? { 'If-Match': ifMatch } : {}) }, body: JSON.stringify(body) });
const get = async (key: string, path = '/settings') => (await (await s.management(path, { key })).json()) as Envelope;

test('every member is named after the variable it overrides, in lower case', (t) => {
  for (const member of SETTINGS_MEMBERS) t.is(configVariableNames[SETTING_VARIABLES[member]].toLowerCase(), member);
});

test('a new tenant has its settings at revision 1 with nothing set; its flows follow the environment', async (t) => {
  const { tenantId, key } = await newTenant(s);
  const settings = await get(key);
  t.is(settings.revision, 1);
  t.deepEqual(settings.data, { ...Object.fromEntries(SETTINGS_MEMBERS.filter((m) => m !== 'callback_secret').map((m) => [m, null])), callback_secret_set: false });
  t.deepEqual((await get(key, '/settings/history')) as unknown, { items: [settings] });
  t.deepEqual(await get(key, '/settings/revisions/1'), settings);
  t.like(s.service.context.tenantSettings.of(tenantId), { revision: 1, offerTtlSeconds: 300, walletAttestation: 'optional', callback: undefined });
});

test('PUT /settings without If-Match is 428, with a stale one 412; nothing recorded', async (t) => {
  const { key } = await newTenant(s);
  t.is((await put(key, { offer_ttl_seconds: 600 })).status, 428);
  t.is((await put(key, { offer_ttl_seconds: 600 }, '"stale"')).status, 412);
  t.is((await get(key)).revision, 1);
});

test('PUT /settings refuses unknown members and bad values, 400 naming each member with its variable\'s rule; nothing recorded', async (t) => {
  const { key } = await newTenant(s);
  const { etag } = await get(key);
  const response = await put(
    key,
    {
      offer_ttl_seconds: 0,
      wallet_attestation: 'sometimes',
      default_redirect_uri: 'http://rp.example/back',
      x509_trust_anchors: ['not-a-certificate'],
      callback_url: 'https://user:pw@hooks.example/',
      status_list_failure_policy: true,
      x509_trust_policy_pid: { evaluate: true },
      presentation_expires_in: 86_400,
      shoe_size: 44,
    },
    etag,
  );
  t.is(response.status, 400);
  const problem = (await response.json()) as Problem;
  t.deepEqual(
    problem.errors.map((e) => e.location).sort(),
    [
      'body.callback_url',
      'body.default_redirect_uri',
      'body.offer_ttl_seconds',
      'body.presentation_expires_in',
      'body.shoe_size',
      'body.status_list_failure_policy',
      'body.wallet_attestation',
      'body.x509_trust_anchors',
      'body.x509_trust_policy_pid',
    ],
  );
  const message = (member: string) => problem.errors.find((e) => e.location === `body.${member}`)!.message;
  t.is(message('shoe_size'), 'unknown member');
  t.is(message('wallet_attestation'), 'expected required or optional');
  t.regex(message('offer_ttl_seconds'), /1-86400/);
  t.regex(message('presentation_expires_in'), /PRESENTATION_EXPIRES_IN_MAX/);
  t.regex(problem.detail, /^Invalid settings: .*shoe_size/);
  t.false(JSON.stringify(problem).includes('user:pw'), 'values are not echoed');
  t.is((await get(key)).revision, 1);
});

test('the callback secret is sealed, never answered back, kept by a PUT without it, and needed with a callback URL', async (t) => {
  const { tenantId, key } = await newTenant(s);
  const first = await get(key);
  const withoutSecret = await put(key, { callback_url: 'https://hooks.example/cb' }, first.etag);
  t.is(withoutSecret.status, 400);
  t.regex(((await withoutSecret.json()) as Problem).detail, /callback_secret: required with callback_url/);
  t.is((await put(key, { callback_secret: SECRET }, first.etag)).status, 400, 'a secret without a URL');

  const set = await put(key, { callback_url: 'https://hooks.example/cb', callback_secret: SECRET }, first.etag);
  t.is(set.status, 200);
  const text = await set.text();
  t.false(text.includes(SECRET.slice('whsec_'.length)));
  const after = JSON.parse(text) as Envelope;
  t.like(after.data, { callback_url: 'https://hooks.example/cb', callback_secret_set: true });
  t.false('callback_secret' in after.data);
  t.false(JSON.stringify(await get(key, '/settings/history')).includes(SECRET.slice('whsec_'.length)));

  const kept = await put(key, { callback_url: 'https://hooks.example/other', offer_ttl_seconds: '900' }, after.etag);
  t.is(kept.status, 200);
  const keptBody = (await kept.json()) as Envelope;
  t.like(keptBody.data, { callback_url: 'https://hooks.example/other', callback_secret_set: true, offer_ttl_seconds: 900 });
  const effective = s.service.context.tenantSettings.of(tenantId);
  t.is(effective.callback?.url, 'https://hooks.example/other');
  t.is(effective.offerTtlSeconds, 900);

  const cleared = (await (await put(key, {}, keptBody.etag)).json()) as Envelope;
  t.like(cleared.data, { callback_url: null, callback_secret_set: false, offer_ttl_seconds: null });
  t.is(s.service.context.tenantSettings.of(tenantId).callback, undefined);
  t.is(s.service.context.tenantSettings.of(tenantId).offerTtlSeconds, 300, 'unset again: the environment\'s');
});

test('members take what their variables take: anchors as a list or comma-separated text, numbers and booleans as JSON', async (t) => {
  const { tenantId, key } = await newTenant(s);
  const ca = await createCertificateAuthority({ commonName: 'Tenant anchor' });
  const [anchor] = x5cOf([ca.certificate]);
  const response = await put(
    key,
    { wallet_provider_trust_anchors: [anchor], x509_trust_anchors: anchor, x509_trust_policy_pid: 'enforce', wallet_attestation: 'required', presentation_expires_in: 120, status_list_failure_policy: 'evaluate', authentication_url: 'https://login.example/start' },
    (await get(key)).etag,
  );
  t.is(response.status, 200, await response.clone().text());
  t.like(((await response.json()) as Envelope).data, { wallet_provider_trust_anchors: [anchor], x509_trust_anchors: [anchor], presentation_expires_in: 120 });
  t.like(s.service.context.tenantSettings.of(tenantId), {
    x509TrustPolicyPid: 'enforce',
    walletAttestation: 'required',
    presentationExpiresIn: 120,
    statusListFailurePolicy: 'evaluate',
    walletProviderTrustAnchors: [anchor],
    x509TrustAnchors: [anchor],
  });
});

test("tenants are isolated: B keeps its own revision 1 and the environment's values after A's change", async (t) => {
  const a = await newTenant(s);
  const b = await newTenant(s);
  const before = await get(b.key);
  t.is((await put(a.key, { offer_ttl_seconds: 42 }, (await get(a.key)).etag)).status, 200);
  t.deepEqual(await get(b.key), before);
  t.is(s.service.context.tenantSettings.of(a.tenantId).offerTtlSeconds, 42);
  t.is(s.service.context.tenantSettings.of(b.tenantId).offerTtlSeconds, 300);
  t.is((await put(b.key, { offer_ttl_seconds: 1 }, (await get(a.key)).etag)).status, 412, "A's etag is not B's");
});

const offerLifetime = async (key: string): Promise<number> => {
  const created = await s.management('/offers', { key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS }) });
  t_assert(created.status === 201, `POST /offers answered ${created.status}`);
  const { offer_id } = (await created.json()) as { offer_id: string };
  const status = (await (await s.management(`/offers/${offer_id}`, { key })).json()) as { created_at: string; expires_at: string };
  return (Date.parse(status.expires_at) - Date.parse(status.created_at)) / 1000;
};
const t_assert = (ok: boolean, message: string): void => {
  if (!ok) throw new Error(message);
};

test("an offer's lifetime is the tenant's offer_ttl_seconds, else OFFER_TTL_SECONDS", async (t) => {
  const own = await newTenant(s);
  const other = await newTenant(s);
  t.is(await offerLifetime(own.key), 300);
  t.is((await put(own.key, { offer_ttl_seconds: 1234 }, (await get(own.key)).etag)).status, 200);
  t.is(await offerLifetime(own.key), 1234);
  t.is(await offerLifetime(other.key), 300, 'another tenant follows the environment');
});

test('ops callbacks set and PUT /settings write the same settings: one source of truth', async (t) => {
  const { configureTenantCallback } = await import('../src/callbacks/tenantCallback.js');
  const { tenantId, key } = await newTenant(s);
  const configured = await configureTenantCallback(s.service.store, s.service.context.kek, { tenantId, url: 'https://ops.example/cb', secret: SECRET }, { actor: 'test' });
  t.true(isRight(configured));
  if (isRight(configured) && configured.right.position) await s.service.runner.waitFor(configured.right.position, 5000);
  const settings = await get(key);
  t.like(settings, { revision: 2, data: { callback_url: 'https://ops.example/cb', callback_secret_set: true } });
  t.is(s.service.context.tenantSettings.of(tenantId).callback?.url, 'https://ops.example/cb');
  t.not(tenantId, BOOTSTRAP_TENANT_ID);
});

test("a tenant's data export shows its settings as the API does: the sealed callback secret stays in the store", async (t) => {
  const { tenantId, key } = await newTenant(s);
  t.is((await put(key, { callback_url: 'https://hooks.example/cb', callback_secret: SECRET }, (await get(key)).etag)).status, 200);
  const { store, dataKeys } = s.service.context;
  const exported = await buildTenantExport({ db: s.service.runner.db, store, dataKeys, blobs: await sealedBlobStore(blobDirectory(s.config)) }, tenantId, { requestId: 'request-1', at: new Date().toISOString() });
  const archive = exported.archive.toString('latin1');
  t.true(archive.includes('"callback_secret_set": true'));
  t.false(archive.includes('ciphertext'), 'no sealed value in the archive');
  t.true(exported.manifest.files.some((f) => f.path.startsWith('resources/settings/')));
});

test('a callback URL set through the API must not name a private or reserved address (EGRESS_ALLOW_PRIVATE_NETWORKS=false)', async (t) => {
  const { key } = await newTenant(s);
  const { etag } = await get(key);
  for (const url of ['http://127.0.0.1:8080/cb', 'http://[::1]/cb', 'http://169.254.169.254/latest/meta-data', 'https://10.0.0.7/hooks']) {
    const response = await put(key, { callback_url: url, callback_secret: SECRET }, etag);
    t.is(response.status, 400, url);
    const problem = (await response.json()) as Problem;
    t.deepEqual(problem.errors.map((e) => e.location), ['body.callback_url'], url);
    t.regex(problem.detail, /callback_url: names a private or reserved address/, url);
  }
  t.is((await get(key)).revision, 1);
  t.is((await put(key, { callback_url: 'https://hooks.example/cb', callback_secret: SECRET }, etag)).status, 200);
});

test("the console's auditor view shows the settings' stream to an admin key of the tenant, the secret sealed and not shown", async (t) => {
  const { tenantId, key } = await newTenant(s);
  t.is((await put(key, { callback_url: 'https://hooks.example/cb', callback_secret: SECRET, offer_ttl_seconds: 60 }, (await get(key)).etag)).status, 200);
  const response = await s.management(`/console/api/streams/${settingsStream(tenantId)}`, { key });
  t.is(response.status, 200);
  const text = await response.text();
  t.regex(text, /TenantSettingsCreated/);
  t.regex(text, /TenantSettingsReplaced/);
  t.regex(text, /\[sealed: not shown\]/);
  t.false(text.includes('ciphertext'));
  const other = await newTenant(s);
  t.is((await s.management(`/console/api/streams/${settingsStream(tenantId)}`, { key: other.key })).status, 404, "another tenant's");
  const resourcesOnly = await newTenant(s, ['resources']);
  t.is((await s.management(`/console/api/streams/${settingsStream(resourcesOnly.tenantId)}`, { key: resourcesOnly.key })).status, 404, 'without admin');
});
