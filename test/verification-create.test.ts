// POST /oidc4vp: what is accepted, what is refused (each failure located), and that a refused
// request records nothing. Also DCQL claim sets and credential sets, end to end.
import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createApiKey } from '../src/tenancy/commands.js';
import { BOOTSTRAP_TENANT_ID } from '../src/tenancy/bootstrap.js';
import { sd } from './support/credentials.js';
import { pidQuery, PID_VCT, startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { answer, postResponse } from './support/wallet/presentation.js';
import { buildVpToken, encryptResponse } from '../wallet/presentation.js';

let h: VerificationHarness;

test.before(async () => {
  h = await startVerificationHarness({ PRESENTATION_EXPIRES_IN_MIN: '10', PRESENTATION_EXPIRES_IN_MAX: '600', PRESENTATION_EXPIRES_IN: '120' });
});

test.after.always(async () => {
  await h?.close();
});

const presentationStreams = async (): Promise<number> =>
  new Set((await h.service.service.store.readAll()).filter((e) => e.streamId.startsWith('presentation-')).map((e) => e.streamId)).size;

const query = pidQuery();
const credential = query.credentials[0]!;

interface Refusal {
  readonly name: string;
  readonly body: unknown;
  readonly locations: readonly string[];
}

const refusals: readonly Refusal[] = [
  { name: 'no dcql_query', body: {}, locations: ['body.dcql_query'] },
  { name: 'empty credentials', body: { dcql_query: { credentials: [] } }, locations: ['body.dcql_query.credentials'] },
  {
    name: 'a format this connector does not verify',
    body: { dcql_query: { credentials: [{ ...credential, format: 'jwt_vc_json' }] } },
    locations: ['body.dcql_query.credentials[0].format'],
  },
  {
    name: 'no vct_values',
    body: { dcql_query: { credentials: [{ ...credential, meta: { vct_values: [] } }] } },
    locations: ['body.dcql_query.credentials[0].meta.vct_values'],
  },
  {
    name: 'no claims',
    body: { dcql_query: { credentials: [{ ...credential, claims: undefined }] } },
    locations: ['body.dcql_query.credentials[0].claims'],
  },
  {
    name: 'an empty claim path and a bad path element',
    body: { dcql_query: { credentials: [{ ...credential, claims: [{ path: [] }, { path: ['a', -1] }] }] } },
    locations: ['body.dcql_query.credentials[0].claims[0].path', 'body.dcql_query.credentials[0].claims[1].path[1]'],
  },
  {
    name: 'a bad id and a non-boolean holder binding',
    body: { dcql_query: { credentials: [{ ...credential, id: 'p id', require_cryptographic_holder_binding: 'yes' }] } },
    locations: ['body.dcql_query.credentials[0].id', 'body.dcql_query.credentials[0].require_cryptographic_holder_binding'],
  },
  {
    name: 'duplicate credential ids',
    body: { dcql_query: { credentials: [credential, credential] } },
    locations: ['body.dcql_query.credentials[0].id', 'body.dcql_query.credentials[1].id'],
  },
  {
    name: 'claim_sets naming an unknown claim, and a claim without id',
    body: {
      dcql_query: { credentials: [{ ...credential, claims: [{ id: 'a', path: ['given_name'] }, { path: ['family_name'] }], claim_sets: [['a', 'b']] }] },
    },
    locations: ['body.dcql_query.credentials[0].claims[1].id', 'body.dcql_query.credentials[0].claim_sets[0][1]'],
  },
  {
    name: 'credential_sets naming an unknown credential',
    body: { dcql_query: { ...query, credential_sets: [{ options: [['pid'], ['mdl']] }] } },
    locations: ['body.dcql_query.credential_sets[0].options[1][0]'],
  },
  {
    name: 'trusted_authorities of an unknown type',
    body: { dcql_query: { credentials: [{ ...credential, trusted_authorities: [{ type: 'guess', values: ['x'] }] }] } },
    locations: ['body.dcql_query.credentials[0].trusted_authorities[0].type'],
  },
  {
    name: 'trusted_authorities of type etsi_tl, which this connector cannot resolve',
    body: { dcql_query: { credentials: [{ ...credential, trusted_authorities: [{ type: 'etsi_tl', values: ['bG90bA'] }] }] } },
    locations: ['body.dcql_query.credentials[0].trusted_authorities[0].type'],
  },
  {
    name: 'an aki trusted authority that is not base64url',
    body: { dcql_query: { credentials: [{ ...credential, trusted_authorities: [{ type: 'aki', values: ['not base64url!'] }] }] } },
    locations: ['body.dcql_query.credentials[0].trusted_authorities[0].values[0]'],
  },
  {
    name: 'transaction data naming an unknown credential',
    body: { dcql_query: query, transaction_data: [{ type: 'payment', credential_ids: ['mdl'] }] },
    locations: ['body.transaction_data[0].credential_ids[0]'],
  },
  {
    name: 'transaction data for a credential without holder binding',
    body: {
      dcql_query: { credentials: [{ ...credential, require_cryptographic_holder_binding: false }] },
      transaction_data: [{ type: 'payment', credential_ids: ['pid'] }],
    },
    locations: ['body.transaction_data[0].credential_ids[0]'],
  },
  {
    name: 'transaction data without type',
    body: { dcql_query: query, transaction_data: [{ credential_ids: ['pid'] }] },
    locations: ['body.transaction_data[0].type'],
  },
  { name: 'expires_in below the minimum', body: { dcql_query: query, expires_in: 9 }, locations: ['body.expires_in'] },
  { name: 'expires_in above the maximum', body: { dcql_query: query, expires_in: 601 }, locations: ['body.expires_in'] },
  { name: 'fractional expires_in', body: { dcql_query: query, expires_in: 30.5 }, locations: ['body.expires_in'] },
  { name: 'a redirect_uri that is not http(s)', body: { dcql_query: query, redirect_uri: 'javascript:alert(1)' }, locations: ['body.redirect_uri'] },
];

for (const refusal of refusals) {
  // Serial: the count of sessions must not move because of another test.
  test.serial(`refused with 400 and nothing recorded: ${refusal.name}`, async (t) => {
    const before = await presentationStreams();
    const { status, json } = await h.create(refusal.body);
    t.is(status, 400);
    t.is(json['type'], '/problems/invalid-request');
    t.deepEqual(
      [...new Set((json['errors'] as { location: string }[]).map((e) => e.location))].sort(),
      [...refusal.locations].sort(),
    );
    t.is(await presentationStreams(), before);
  });
}

test('invalid JSON is 400 and a non-JSON body 415', async (t) => {
  const post = (body: string, type: string) =>
    h.service.management('/oidc4vp', { method: 'POST', headers: { 'Content-Type': type }, body });
  t.is((await post('{', 'application/json')).status, 400);
  t.is((await post('a=b', 'application/x-www-form-urlencoded')).status, 415);
});

test('POST /oidc4vp needs an API key with the connector scope', async (t) => {
  t.is((await h.service.management('/oidc4vp', { method: 'POST', key: null })).status, 401);
  const key = await createApiKey(
    h.service.service.store,
    { tenantId: BOOTSTRAP_TENANT_ID, scopes: ['resources'], expiration: null },
    { actor: 'test' },
  );
  if (isLeft(key)) throw new Error('no key');
  await h.service.service.runner.waitFor(key.right.position, 5000);
  const response = await h.service.management('/oidc4vp', {
    method: 'POST',
    key: key.right.secret,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ dcql_query: query }),
  });
  t.is(response.status, 403);
});

test('expires_in defaults to PRESENTATION_EXPIRES_IN and is reported as expires_at', async (t) => {
  const started = Date.now();
  const { status, json } = await h.create({ dcql_query: query });
  t.is(status, 201);
  const expiresAt = Date.parse(json['expires_at'] as string);
  t.true(expiresAt >= started + 119_000 && expiresAt <= Date.now() + 120_000);
  const bounded = await h.create({ dcql_query: query, expires_in: 600 });
  t.is(bounded.status, 201);
});

test('claim sets: the first alternative the wallet satisfies is accepted', async (t) => {
  const { created, request } = await h.requestAndFetch({
    dcql_query: {
      credentials: [
        {
          ...credential,
          claims: [
            { id: 'name', path: ['family_name'] },
            { id: 'birth', path: ['birthdate'] },
          ],
          claim_sets: [['name'], ['birth']],
        },
      ],
    },
  });
  const posted = await answer(h.endpoints, request, { pid: { credential: await h.pid(), holder: h.holder, disclose: ['birthdate'] } });
  t.is(posted.status, 200);
  const callback = await h.callback(created.state);
  t.is(callback['status'], 'FULFILLED');
  const [presented] = (callback['credentials'] as Record<string, { claims: Record<string, unknown> }[]>)['pid']!;
  t.is(presented!.claims['birthdate'], '1964-08-12');
  t.false('family_name' in presented!.claims);
});

test('credential sets: an optional set may be left out, a required one may not', async (t) => {
  const membership = {
    id: 'membership',
    format: 'dc+sd-jwt',
    meta: { vct_values: ['urn:example:membership'] },
    claims: [{ path: ['member_id'] }],
  };
  const dcql_query = {
    credentials: [credential, membership],
    credential_sets: [{ options: [['pid']] }, { options: [['membership']], required: false }],
  };
  const ok = await h.requestAndFetch({ dcql_query });
  t.is((await answer(h.endpoints, ok.request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.is((await h.callback(ok.created.state))['status'], 'FULFILLED');

  const card = await h.issuer.issue({ vct: 'urn:example:membership', claims: { member_id: sd('M-1') }, holder: h.holder });
  const missing = await h.requestAndFetch({ dcql_query });
  t.is((await answer(h.endpoints, missing.request, { membership: { credential: card, holder: h.holder } })).status, 400);
  t.like(await h.callback(missing.created.state), { status: 'VERIFICATION_FAILED' });
});

test('multiple: several presentations of one query only when the query allows it', async (t) => {
  const twice = async (multiple: boolean) => {
    const { created, request } = await h.requestAndFetch({ dcql_query: pidQuery({ multiple }) });
    const one = await buildVpToken(request, { pid: { credential: await h.pid(), holder: h.holder } });
    const two = await buildVpToken(request, { pid: { credential: await h.pid({ vct: PID_VCT }), holder: h.holder } });
    const jwe = await encryptResponse(request, { vp_token: { pid: [...one['pid']!, ...two['pid']!] }, state: created.state });
    await postResponse(h.endpoints, request, { response: jwe });
    return h.callback(created.state);
  };
  const allowed = await twice(true);
  t.is(allowed['status'], 'FULFILLED');
  t.is((allowed['credentials'] as Record<string, unknown[]>)['pid']!.length, 2);
  t.like(await twice(false), { status: 'VERIFICATION_FAILED' });
});

test('claim values: a disclosed claim must hold one of the requested values', async (t) => {
  const withValues = (values: string[]) => ({
    dcql_query: { credentials: [{ ...credential, claims: [{ path: ['given_name'] }, { path: ['family_name'], values }] }] },
  });
  const matching = await h.requestAndFetch(withValues(['Mustermann', 'Musterfrau']));
  t.is((await answer(h.endpoints, matching.request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 200);
  t.like(await h.callback(matching.created.state), { status: 'FULFILLED' });
  const other = await h.requestAndFetch(withValues(['Schmidt']));
  t.is((await answer(h.endpoints, other.request, { pid: { credential: await h.pid(), holder: h.holder } })).status, 400);
  const callback = await h.callback(other.created.state);
  t.is(callback['status'], 'VERIFICATION_FAILED');
  t.regex(callback['errorDetails'] as string, /family_name does not have one of the requested values/);
});
