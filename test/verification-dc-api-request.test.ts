// Creating a Digital Credentials API session (POST /oidc4vp with flow_type dc_api): the request
// objects it answers, and what is refused with the location of the error; answering it is
// test/verification-dc-api.test.ts.
import test from 'ava';
import { decodeProtectedHeader } from 'jose';
import { startVerificationHarness, type VerificationHarness } from './support/wallet/connector.js';
import { createDcApi, dcApiBody, mdlQuery, ORIGIN, pidQuery, readRequest, single } from './support/dcApi.js';

let h: VerificationHarness;

test.before(async () => {
  h = await startVerificationHarness();
});

test.after.always(async () => h.close());

test('the signed request: x509_hash client id and x5c, expected_origins, dc_api.jwt, the fresh key, nonce, DCQL and transaction data; no response_uri, state or redirect_uri', async (t) => {
  const transactionData = { type: 'payment', credential_ids: ['pid'], amount: '10 EUR' };
  const created = await createDcApi(h, [pidQuery], { expected_origins: [ORIGIN, 'https://www.shop.example:8443'], transaction_data: [transactionData] });
  t.deepEqual(Object.keys(created).sort(), ['dc_api_request', 'expires_at', 'state']);
  const entry = single(created);
  t.deepEqual(Object.keys(entry.data), ['request']);
  const header = decodeProtectedHeader(String(entry.data['request']));
  t.like(header, { alg: 'ES256', typ: 'oauth-authz-req+jwt' });
  const { parameters, key } = await readRequest(entry);
  t.regex(String(parameters['client_id']), /^x509_hash:[A-Za-z0-9_-]{43}$/);
  t.like(parameters, { response_type: 'vp_token', response_mode: 'dc_api.jwt', aud: 'https://self-issued.me/v2' });
  t.deepEqual(parameters['expected_origins'], [ORIGIN, 'https://www.shop.example:8443']);
  t.deepEqual(parameters['dcql_query'], { credentials: [pidQuery] });
  t.deepEqual(parameters['transaction_data'], [Buffer.from(JSON.stringify(transactionData)).toString('base64url')]);
  t.regex(String(parameters['nonce']), /^[A-Za-z0-9_-]{43}$/);
  t.like(key, { kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' });
  t.is(key.d, undefined);
  for (const absent of ['response_uri', 'state', 'redirect_uri']) t.false(absent in parameters, absent);
  t.is(parameters['exp'], Math.floor(Date.parse(created.expires_at) / 1000));
});

test('the unsigned request holds the parameters themselves, without client_id or expected_origins', async (t) => {
  const entry = single(await createDcApi(h, [pidQuery], { dc_api_signed: false }));
  t.is(entry.protocol, 'openid4vp-v1-unsigned');
  t.deepEqual(Object.keys(entry.data).sort(), ['client_metadata', 'dcql_query', 'nonce', 'response_mode', 'response_type']);
  t.like(entry.data, { response_type: 'vp_token', response_mode: 'dc_api.jwt' });
});

for (const [name, body, location] of [
  ['flow_type dc_api without expected_origins', { flow_type: 'dc_api', dcql_query: { credentials: [pidQuery] } }, 'body.expected_origins'],
  ['an empty expected_origins', dcApiBody([pidQuery], { expected_origins: [] }), 'body.expected_origins'],
  ['an http origin', dcApiBody([pidQuery], { expected_origins: ['http://shop.example'] }), 'body.expected_origins[0]'],
  ['an origin with a path', dcApiBody([pidQuery], { expected_origins: [ORIGIN, 'https://shop.example/checkout'] }), 'body.expected_origins[1]'],
  ['an origin with a trailing slash', dcApiBody([pidQuery], { expected_origins: ['https://shop.example/'] }), 'body.expected_origins[0]'],
  ['redirect_uri with dc_api', dcApiBody([pidQuery], { redirect_uri: 'https://shop.example/done' }), 'body.redirect_uri'],
  ['expected_origins without dc_api', { dcql_query: { credentials: [pidQuery] }, expected_origins: [ORIGIN] }, 'body.expected_origins'],
  ['dc_api_signed without dc_api', { dcql_query: { credentials: [pidQuery] }, dc_api_signed: false }, 'body.dc_api_signed'],
  ['dc_api_protocols without dc_api', { dcql_query: { credentials: [pidQuery] }, dc_api_protocols: ['openid4vp-v1-signed'] }, 'body.dc_api_protocols'],
  ['another flow_type', { dcql_query: { credentials: [pidQuery] }, flow_type: 'cross-device' }, 'body.flow_type'],
  ['a protocol this connector does not offer (the former name org.iso.mdoc)', dcApiBody([mdlQuery], { dc_api_protocols: ['openid4vp-v1-signed', 'org.iso.mdoc'] }), 'body.dc_api_protocols[1]'],
  ['a protocol named twice', dcApiBody([pidQuery], { dc_api_protocols: ['openid4vp-v1-signed', 'openid4vp-v1-signed'] }), 'body.dc_api_protocols[1]'],
  ['dc_api_signed beside dc_api_protocols', dcApiBody([pidQuery], { dc_api_protocols: ['openid4vp-v1-signed'], dc_api_signed: true }), 'body.dc_api_signed'],
] as const) {
  test(`POST /oidc4vp refuses ${name} with 400`, async (t) => {
    const { status, json } = await h.create(body);
    t.is(status, 400);
    t.deepEqual((json['errors'] as { location: string }[]).map((e) => e.location), [location]);
  });
}
