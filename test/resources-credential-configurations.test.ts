// Credential configurations as tenant resources over HTTP (a real service on loopback): create,
// read, list, replace under If-Match, delete and restore, history and revisions, Idempotency-Key;
// every refusal of the configuration's rules naming its field; one configuration id per tenant
// (409); tenant isolation (404); and TenantConfigurations, the port the issuer reads them through,
// over the same read model.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { tenantConfigurations } from '../src/issuance/tenantConfigurations.js';
import { credentialConfigurationsKind } from '../src/resources/credentialConfigurationsKind.js';
import { recordNamedCreation } from '../src/resources/create.js';
import { configurationResourceId } from '../streams/credentialConfiguration.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import type { Scope } from '../streams/apiKey.js';
import { startTestService, type TestService } from './support/service.js';

type Resource = { id: string; etag: string; revision: number; kind: { name: string }; deleted_at: string | null; data: Record<string, unknown> };
type Problem = { status: number; errors?: { location: string; message: string }[]; detail?: string };

const json = { 'Content-Type': 'application/json' };
const en = (name: string) => [{ lang: 'en', name }];

const badge = (id = 'badge', level = 'level') => ({
  id,
  vct: 'https://example.org/badge',
  display: en('Badge'),
  claims: [
    { path: [level], mandatory: true, sd: 'never', value_type: 'integer', display: en('Level') },
    { path: ['holder', 'name'], mandatory: false, sd: 'always', display: en('Name') },
  ],
});
const licence = {
  id: 'licence-mdoc',
  format: 'mso_mdoc',
  doctype: 'org.iso.18013.5.1.mDL',
  display: en('Licence'),
  claims: [{ path: ['org.iso.18013.5.1', 'family_name'], mandatory: true, display: en('Family name'), value_type: 'string' }],
  status_list: false,
};

const base = '/credential-configurations';

const post = async (s: TestService, data: unknown, init: { key?: string; headers?: Record<string, string> } = {}) => {
  const response = await s.management(base, { method: 'POST', headers: { ...json, ...init.headers }, body: JSON.stringify({ data }), ...(init.key ? { key: init.key } : {}) });
  return { response, body: (await response.json()) as Resource & Problem };
};
const put = async (s: TestService, id: string, data: unknown, ifMatch?: string, key?: string) => {
  const response = await s.management(`${base}/${id}`, {
    method: 'PUT',
    headers: { ...json, ...(ifMatch ? { 'If-Match': ifMatch } : {}) },
    body: JSON.stringify({ data }),
    ...(key ? { key } : {}),
  });
  return { response, body: (await response.json()) as Resource & Problem };
};
const read = async (s: TestService, path: string, key?: string) => {
  const response = await s.management(path, key ? { key } : {});
  return { status: response.status, body: (await response.json()) as Resource & { items: Resource[] } };
};

/** A key with `scopes` of tenant `tenantId`, or of a new tenant. */
const tenantKey = async (s: TestService, scopes: Scope[], tenantId?: string): Promise<{ key: string; tenantId: string }> => {
  let owner = tenantId;
  if (owner === undefined) {
    const tenant = await createTenant(s.service.store, { name: `other-${randomUUID()}` }, { actor: 'test' });
    if (isLeft(tenant)) throw new Error('tenant');
    owner = tenant.right.tenantId;
  }
  const key = await createApiKey(s.service.store, { tenantId: owner, scopes, expiration: null }, { actor: 'test' });
  if (isLeft(key)) throw new Error('key');
  await s.service.runner.waitFor(key.right.position, 5000);
  return { key: key.right.secret, tenantId: owner };
};

let service: TestService;
test.before(async () => {
  service = await startTestService();
});
test.after.always(async () => {
  await service?.cleanup();
});

test('create answers 201 with the configuration as data, ETag and Location; it is read back, listed, and its history has it', async (t) => {
  const s = service;
  const { response, body } = await post(s, badge('create-badge'));
  t.is(response.status, 201);
  t.deepEqual(body.kind, { name: 'credential-configuration', version: 1 });
  t.is(body.revision, 1);
  t.deepEqual(body.data, badge('create-badge'));
  t.is(response.headers.get('etag'), body.etag);
  t.is(response.headers.get('location'), `${base}/${body.id}`);

  const mdoc = await post(s, licence);
  t.is(mdoc.response.status, 201);
  t.deepEqual(mdoc.body.data, licence);

  t.like(await read(s, `${base}/${body.id}`), { status: 200, body: { revision: 1, data: badge('create-badge') } });
  const listed = await read(s, base);
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.items.filter((i) => [body.id, mdoc.body.id].includes(i.id)).map((i) => i.data['id']),
    ['create-badge', 'licence-mdoc'],
  );
  const history = await read(s, `${base}/${body.id}/history`);
  t.deepEqual(history.body.items.map((i) => i.revision), [1]);
});

test('members the connector does not know are not kept: data holds what the issuer uses', async (t) => {
  const s = service;
  const given = { ...badge('unknown-members'), validity_days: 30, display: [{ lang: 'en', name: 'Badge', logo: 'x' }] };
  const { response, body } = await post(s, given);
  t.is(response.status, 201);
  t.deepEqual(body.data, { ...badge('unknown-members'), display: en('Badge') });
});

test('PUT with If-Match makes a new revision holding the configuration whole; a stale If-Match is 412, none 428; the old revision stays readable', async (t) => {
  const s = service;
  const { body: v1 } = await post(s, badge('put-badge'));
  const next = { ...badge('put-badge', 'grade'), status_list: false };
  t.is((await put(s, v1.id, next)).response.status, 428);
  const changed = await put(s, v1.id, next, v1.etag);
  t.is(changed.response.status, 200);
  t.is(changed.body.revision, 2);
  t.deepEqual(changed.body.data, next, 'replaced whole, not merged');
  const stale = await put(s, v1.id, badge('put-badge'), v1.etag);
  t.is(stale.response.status, 412);
  t.like(await read(s, `${base}/${v1.id}`), { body: { revision: 2, data: next } });
  t.like(await read(s, `${base}/${v1.id}/revisions/1`), { status: 200, body: { revision: 1, data: badge('put-badge') } });
  t.deepEqual((await read(s, `${base}/${v1.id}/history`)).body.items.map((i) => i.data['claims']), [badge('put-badge').claims, next.claims]);
});

test('PUT cannot change the configuration id (it names the resource): 400 naming body.data.id, nothing written', async (t) => {
  const s = service;
  const { body } = await post(s, badge('fixed-id'));
  const renamed = await put(s, body.id, badge('another-id'), body.etag);
  t.is(renamed.response.status, 400);
  t.deepEqual(renamed.body.errors?.map((e) => e.location), ['body.data.id']);
  t.like(await read(s, `${base}/${body.id}`), { body: { revision: 1 } });
});

test('a second POST of an id the tenant has is 409, live or deleted; a deleted one is restored, not made anew', async (t) => {
  const s = service;
  const { body } = await post(s, badge('twice'));
  const again = await post(s, badge('twice', 'other'));
  t.is(again.response.status, 409);
  t.regex(String(again.body.detail), /"twice"/);
  const deleted = await s.management(`${base}/${body.id}`, { method: 'DELETE', headers: { 'If-Match': body.etag } });
  t.is(deleted.status, 200);
  const gone = (await deleted.json()) as Resource;
  t.truthy(gone.deleted_at);
  t.false((await read(s, base)).body.items.some((i) => i.id === body.id), 'a deleted configuration is not listed');
  t.is((await s.management(`${base}/${body.id}`, { method: 'DELETE', headers: { 'If-Match': gone.etag } })).status, 409);
  const afterDelete = await post(s, badge('twice'));
  t.is(afterDelete.response.status, 409);
  t.regex(String(afterDelete.body.detail), /restore/);
  t.is((await put(s, body.id, badge('twice'), gone.etag)).response.status, 409, 'a deleted configuration is not replaced');
  const restored = await s.management(`${base}/${body.id}/restore`, { method: 'POST', headers: { 'If-Match': gone.etag } });
  t.is(restored.status, 200);
  t.like((await restored.json()) as Resource, { revision: 3, deleted_at: null, data: badge('twice') });
});

test('a POST under an Idempotency-Key is answered again for the same request, without a second resource', async (t) => {
  const s = service;
  const headers = { 'Idempotency-Key': randomUUID() };
  const first = await post(s, badge('idempotent'), { headers });
  t.is(first.response.status, 201);
  const replayed = await post(s, badge('idempotent'), { headers });
  t.is(replayed.response.status, 201);
  t.is(replayed.response.headers.get('idempotent-replayed'), 'true');
  t.is(replayed.body.id, first.body.id);
  t.is(replayed.body.revision, 1);
  t.is((await post(s, badge('idempotent', 'x'), { headers })).response.status, 422, 'the key used for another request');
});

/** Each configuration the rules refuse, and the field the refusal must name. */
const refusals: readonly (readonly [string, unknown, string, RegExp?])[] = [
  // (Each refused configuration is checked absent from the list afterwards.)
  ['a bad id', { ...badge(), id: 'not an id!' }, 'body.data.id'],
  ['an id over 64 characters', { ...badge(), id: 'x'.repeat(65) }, 'body.data.id'],
  ['an unknown format', { ...badge(), format: 'jwt_vc_json' }, 'body.data.format'],
  ['a vct that is not a URI', { ...badge(), vct: 'badge' }, 'body.data.vct'],
  ['a claim the connector sets', { ...badge(), claims: [{ path: ['iss'], mandatory: true, sd: 'never', display: [] }] }, 'body.data.claims[0].path', /"iss" is set by the connector/],
  ['an SD-JWT reserved name inside a claim path', { ...badge(), claims: [{ path: ['a', '_sd'], mandatory: true, sd: 'never', display: [] }] }, 'body.data.claims[0].path', /reserved/],
  ['an unknown selective disclosure rule', { ...badge(), claims: [{ path: ['a'], mandatory: true, sd: 'sometimes', display: [] }] }, 'body.data.claims[0].sd'],
  ['an unknown value type', { ...badge(), claims: [{ path: ['a'], mandatory: true, sd: 'never', display: [], value_type: 'blob' }] }, 'body.data.claims[0].value_type'],
  ['two claims with one path', { ...badge(), claims: [badge().claims[0], badge().claims[0]] }, 'body.data.claims[1].path', /duplicates claims\[0\]/],
  ['a claim nested in another', { ...badge(), claims: [{ path: ['holder'], mandatory: false, sd: 'never', display: [] }, badge().claims[1]] }, 'body.data.claims[1].path', /nests/],
  ['no display', { ...badge(), display: [] }, 'body.data.display'],
  ['no claims', { ...badge(), claims: [] }, 'body.data.claims'],
  ['an mdoc without doctype', (({ doctype: _, ...rest }) => rest)(licence), 'body.data.doctype'],
  ['an mdoc element path that is not [namespace, element]', { ...licence, claims: [{ ...licence.claims[0], path: ['org.iso.18013.5.1'] }] }, 'body.data.claims[0].path'],
  ['an mdoc value type it does not know', { ...licence, claims: [{ ...licence.claims[0], value_type: 'date' }] }, 'body.data.claims[0].value_type'],
  ['a configuration that is not an object', 'pid', 'body.data'],
];

for (const [what, data, location, message] of refusals) {
  test(`POST of a configuration with ${what} is 400 naming ${location}, and nothing is written`, async (t) => {
    const s = service;
    const { response, body } = await post(s, data);
    t.is(response.status, 400);
    const named = body.errors?.filter((e) => e.location === location) ?? [];
    t.true(named.length > 0, `${location} named in ${JSON.stringify(body.errors)}`);
    if (message) t.regex(named.map((e) => e.message).join('; '), message);
    const id = typeof data === 'object' && data !== null ? (data as { id?: unknown }).id : undefined;
    t.false((await read(s, base)).body.items.some((i) => i.data['id'] === id && JSON.stringify(i.data) === JSON.stringify(data)));
  });
}

test('PUT refuses a configuration by the same rules, naming the field; the resource keeps its revision', async (t) => {
  const s = service;
  const { body } = await post(s, badge('put-refused'));
  const refused = await put(s, body.id, { ...badge('put-refused'), claims: [{ path: ['cnf'], mandatory: true, sd: 'never', display: [] }] }, body.etag);
  t.is(refused.response.status, 400);
  t.deepEqual(refused.body.errors?.map((e) => e.location), ['body.data.claims[0].path']);
  t.like(await read(s, `${base}/${body.id}`), { body: { revision: 1 } });
});

test('tenant isolation: another tenant cannot see, list, change or delete a configuration (404), and has its own of the same id', async (t) => {
  const s = service;
  const { body } = await post(s, badge('shared-name'));
  const { key } = await tenantKey(s, ['admin']);
  for (const path of [`${base}/${body.id}`, `${base}/${body.id}/history`, `${base}/${body.id}/revisions/1`]) t.is((await read(s, path, key)).status, 404, path);
  t.deepEqual((await read(s, base, key)).body.items, []);
  t.is((await put(s, body.id, badge('shared-name', 'x'), body.etag, key)).response.status, 404);
  t.is((await s.management(`${base}/${body.id}`, { key, method: 'DELETE', headers: { 'If-Match': body.etag } })).status, 404);
  const theirs = await post(s, badge('shared-name', 'theirs'), { key });
  t.is(theirs.response.status, 201, 'the id is unique in a tenant, not across tenants');
  t.not(theirs.body.id, body.id);
  t.like(await read(s, `${base}/${body.id}`), { status: 200, body: { revision: 1, data: badge('shared-name') } });
});

test('credential configurations need the admin scope', async (t) => {
  const s = service;
  const { key } = await tenantKey(s, ['resources'], BOOTSTRAP_TENANT_ID);
  t.is((await post(s, badge('scoped'), { key })).response.status, 403);
  t.is((await read(s, base, key)).status, 403);
});

test('TenantConfigurations: current holds the live ones at their current revisions; atRevision gives each revision, also once deleted', async (t) => {
  const s = service;
  const port = tenantConfigurations(s.service.runner.db);
  const { key, tenantId } = await tenantKey(s, ['admin']);
  t.deepEqual([...port.current(tenantId)], [], 'a tenant without configurations has none');

  const { body: v1 } = await post(s, badge('port'), { key });
  const { body: mdoc } = await post(s, licence, { key });
  t.deepEqual([...port.current(tenantId).keys()].sort(), ['licence-mdoc', 'port']);
  t.deepEqual(port.current(tenantId).get('port'), { configuration: badge('port') as never, revision: 1 });

  const { body: v2 } = await put(s, v1.id, badge('port', 'grade'), v1.etag, key);
  t.deepEqual(port.current(tenantId).get('port'), { configuration: badge('port', 'grade') as never, revision: 2 }, 'current after an update is the new revision');
  t.deepEqual(port.atRevision(tenantId, 'port', 1), badge('port') as never, 'the revision an offer was made with');
  t.deepEqual(port.atRevision(tenantId, 'port', 2), badge('port', 'grade') as never);
  t.is(port.atRevision(tenantId, 'port', 3), undefined, 'a revision not written');
  t.is(port.atRevision(tenantId, 'unknown', 1), undefined);

  t.is((await s.management(`${base}/${mdoc.id}`, { key, method: 'DELETE', headers: { 'If-Match': mdoc.etag } })).status, 200);
  t.deepEqual([...port.current(tenantId).keys()], ['port'], 'deleted: not current');
  t.deepEqual(port.atRevision(tenantId, 'licence-mdoc', 1), licence as never, 'deleted: still at its revision');

  // Another tenant's ids and revisions are not this tenant's.
  t.is(port.atRevision(BOOTSTRAP_TENANT_ID, 'port', 1), undefined);
  t.false(port.current(BOOTSTRAP_TENANT_ID).has('port'));
  t.is(v2.revision, 2);
});

test('two creations of one configuration id racing: one is recorded, the other refused (ResourceExists), never taken as a retry of the first', async (t) => {
  const s = service;
  const tenantId = randomUUID();
  const resourceId = configurationResourceId(tenantId, 'raced');
  const creation = (level: string) =>
    ({
      type: 'CreateCredentialConfiguration',
      data: { resourceId, tenantId, configuration: badge('raced', level), annotations: {}, labels: {}, at: new Date().toISOString() },
    }) as const;
  const metadata = { actor: 'test' };
  const results = await Promise.all([
    recordNamedCreation(s.service.store, credentialConfigurationsKind, resourceId, creation('first'), metadata),
    recordNamedCreation(s.service.store, credentialConfigurationsKind, resourceId, creation('second'), metadata),
  ]);
  t.deepEqual(results.map((r) => r._tag).sort(), ['Left', 'Right']);
  t.deepEqual(results.find(isLeft)?.left, { _tag: 'ResourceExists' });
  // The same creation again is refused too: the id is the request's, not a fresh one.
  t.deepEqual(await recordNamedCreation(s.service.store, credentialConfigurationsKind, resourceId, creation('first'), metadata), { _tag: 'Left', left: { _tag: 'ResourceExists' } });
  const read = await s.service.store.readStream(credentialConfigurationsKind.streamOf(resourceId));
  t.is(read._tag === 'Found' ? read.events.length : 0, 1);
});

test('the auditor sees who changed a configuration and when (console stream view, scope admin); another tenant does not', async (t) => {
  const s = service;
  const { body } = await post(s, badge('audited'));
  await put(s, body.id, badge('audited', 'grade'), body.etag);
  const stream = `/console/api/streams/credentialconfiguration-${body.id}`;
  const response = await s.management(stream);
  t.is(response.status, 200);
  const text = JSON.stringify(await response.json());
  t.regex(text, /CredentialConfigurationCreated[\s\S]*CredentialConfigurationReplaced/);
  t.regex(text, /apikey:/, 'the actor of each change');
  const { key } = await tenantKey(s, ['admin']);
  t.is((await s.management(stream, { key })).status, 404);
});
