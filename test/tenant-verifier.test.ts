// `/verifier`: the tenant's registration as a relying party, over HTTP. It exists from the tenant's
// creation (revision 1, nothing set), every PUT needs If-Match, and a registration certificate is
// recorded only when it is a real one: typ rc-wrp+jwt, signed by the key of its x5c leaf, not
// expired, its leaf valid now, its `credentials` well formed. TenantVerifierRegistrations reads it.
import test from 'ava';
import { startTestService, type TestService } from './support/service.js';
import { newTenant } from './support/tenants.js';
import { MDL, PID_SD_JWT, registrarAnchor, registrationCertificate } from './support/registrationCertificate.js';
import { createCertificateAuthority } from '../src/crypto/certificates.js';
import { withTestService } from './support/service.js';
import { DAY_MS } from '../src/crypto/certificates.js';

type Envelope = { id: string; revision: number; etag: string; created_at: string; modified_at: string; kind: { name: string }; data: Record<string, unknown> };

let s: TestService;
test.before(async () => {
  s = await startTestService();
});
test.after.always(async () => {
  await s?.cleanup();
});

const put = (key: string, body: unknown, ifMatch?: string) =>
  s.management('/verifier', { key, method: 'PUT', headers: { 'Content-Type': 'application/json', ...(ifMatch ? { 'If-Match': ifMatch } : {}) }, body: JSON.stringify(body) });
const get = async (key: string, path = '/verifier') => (await (await s.management(path, { key })).json()) as Envelope;

test('a new tenant has its verifier at revision 1 with nothing set, dated at its creation; GET, history and revision 1 agree', async (t) => {
  const { key } = await newTenant(s);
  const response = await s.management('/verifier', { key });
  t.is(response.status, 200);
  const latest = (await response.json()) as Envelope;
  t.like(latest, { revision: 1, kind: { name: 'verifier' }, data: { registration_certificate: null, credentials: [], enforce_registration: false } });
  t.is(response.headers.get('etag'), latest.etag);
  t.deepEqual((await get(key, '/verifier/history')) as unknown, { items: [latest] });
  t.deepEqual(await get(key, '/verifier/revisions/1'), latest);
  t.is((await s.management('/verifier/revisions/2', { key })).status, 404);
  t.is((await s.management('/verifier', { key, headers: { 'If-None-Match': latest.etag } })).status, 304);
});

test('PUT /verifier records a checked registration certificate with its credentials; without If-Match 428, stale 412, nothing recorded', async (t) => {
  const { tenantId, key } = await newTenant(s);
  const initial = await get(key);
  const jwt = await registrationCertificate();
  const body = { registration_certificate: jwt, enforce_registration: true };
  t.is((await put(key, body)).status, 428);
  t.is((await put(key, body, '"stale"')).status, 412);
  t.is((await get(key)).revision, 1, 'refused writes record nothing');

  const response = await put(key, body, initial.etag);
  t.is(response.status, 200);
  const changed = (await response.json()) as Envelope;
  t.like(changed, { revision: 2, data: { registration_certificate: jwt, enforce_registration: true } });
  t.deepEqual(changed.data['credentials'], [PID_SD_JWT, MDL]);
  // Revision 1 was recorded with the first change, at the tenant's creation.
  const history = (await get(key, '/verifier/history')) as unknown as { items: Envelope[] };
  t.deepEqual(history.items.map((e) => e.revision), [1, 2]);
  t.deepEqual(history.items[0], initial);
  t.is((await put(key, body, initial.etag)).status, 412, 'the etag of revision 1 is stale now');

  t.deepEqual(s.service.context.verifierRegistrations.of(tenantId), { registrationCertificate: jwt, credentials: [PID_SD_JWT, MDL], enforce: true });
});

const refusals: readonly [string, () => Promise<string>, RegExp][] = [
  ['a wrong typ', () => registrationCertificate({ typ: 'JWT' }), /typ: .*rc-wrp\+jwt/],
  ['a signature by another key than its x5c leaf', () => registrationCertificate({ signedByOtherKey: true }), /signature: /],
  ['no x5c', () => registrationCertificate({ noX5c: true }), /x5c: /],
  ['an exp passed', () => registrationCertificate({ exp: Math.floor(Date.now() / 1000) - 3600 }), /expired: /],
  ['an iat in the future', () => registrationCertificate({ iat: Math.floor(Date.now() / 1000) + 3600 }), /iat: /],
  ['a leaf certificate expired', () => registrationCertificate({ leafValidity: { notBefore: new Date(Date.now() - 10 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) } }), /certificate_validity: /],
  ['no credentials', () => registrationCertificate({ credentials: [] }), /credentials: /],
  ['a credential without meta', () => registrationCertificate({ credentials: [{ format: 'dc+sd-jwt' }] }), /credentials: credentials\[0\]\.meta/],
  ['a claim path that is not an array', () => registrationCertificate({ credentials: [{ ...PID_SD_JWT, claims: [{ path: 'given_name' }] }] }), /credentials: credentials\[0\]\.claims\[0\]\.path/],
  ['not a JWS', async () => 'not-a-jwt', /malformed: /],
];

for (const [what, make, rule] of refusals) {
  test(`PUT /verifier refuses a registration certificate with ${what}: 400 naming the rule, nothing recorded`, async (t) => {
    const { tenantId, key } = await newTenant(s);
    const initial = await get(key);
    const response = await put(key, { registration_certificate: await make(), enforce_registration: false }, initial.etag);
    t.is(response.status, 400);
    const problem = (await response.json()) as { detail: string; errors: { location: string }[] };
    t.regex(problem.detail, rule);
    t.is(problem.errors[0]?.location, 'body.registration_certificate');
    t.is((await get(key)).revision, 1);
    t.is(s.service.context.verifierRegistrations.of(tenantId), undefined);
  });
}

test('PUT /verifier refuses unknown members, a missing member, and enforcement without a certificate', async (t) => {
  const { key } = await newTenant(s);
  const { etag } = await get(key);
  const unknown = await put(key, { registration_certificate: null, enforce_registration: false, extra: 1 }, etag);
  t.is(unknown.status, 400);
  t.regex(((await unknown.json()) as { detail: string }).detail, /extra: unknown member/);
  t.is((await put(key, { registration_certificate: null }, etag)).status, 400);
  const enforcing = await put(key, { registration_certificate: null, enforce_registration: true }, etag);
  t.is(enforcing.status, 400);
  t.regex(((await enforcing.json()) as { detail: string }).detail, /enforce_registration/);
  t.is((await get(key)).revision, 1);
});

test("tenants are isolated: B sees its own revision 1 after A's change, and A's registration is not B's", async (t) => {
  const a = await newTenant(s);
  const b = await newTenant(s);
  const before = await get(b.key);
  t.is((await put(a.key, { registration_certificate: await registrationCertificate(), enforce_registration: false }, (await get(a.key)).etag)).status, 200);
  const afterB = await get(b.key);
  t.deepEqual(afterB, before);
  t.is(afterB.revision, 1);
  t.not(afterB.id, (await get(a.key)).id);
  t.not(s.service.context.verifierRegistrations.of(a.tenantId), undefined);
  t.is(s.service.context.verifierRegistrations.of(b.tenantId), undefined);
  // A's etag does not change B's verifier.
  t.is((await put(b.key, { registration_certificate: null, enforce_registration: false }, (await get(a.key)).etag)).status, 412);
});

test('the verifier and the settings need scope admin', async (t) => {
  const { key } = await newTenant(s, ['resources', 'connector']);
  for (const path of ['/verifier', '/settings']) t.is((await s.management(path, { key })).status, 403);
});

test('with REGISTRATION_CERTIFICATE_TRUST_ANCHORS, a registration certificate must chain to one of them: another registrar\'s is refused (fail closed)', async (t) => {
  await withTestService(
    async (service) => {
      const { key } = await newTenant(service);
      const etag = (await service.management('/verifier', { key })).headers.get('etag')!;
      const putAs = (jwt: string) =>
        service.management('/verifier', { key, method: 'PUT', headers: { 'Content-Type': 'application/json', 'If-Match': etag }, body: JSON.stringify({ registration_certificate: jwt, enforce_registration: false }) });
      const stranger = await createCertificateAuthority({ commonName: 'Unknown registrar' });
      const refused = await putAs(await registrationCertificate({ registrar: stranger }));
      t.is(refused.status, 400);
      t.regex(((await refused.json()) as { detail: string }).detail, /^registration_certificate: registrar: /);
      t.is((await putAs(await registrationCertificate())).status, 200);
    },
    { env: { REGISTRATION_CERTIFICATE_TRUST_ANCHORS: await registrarAnchor() } },
  );
});
