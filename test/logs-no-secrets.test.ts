// Every log line of whole flows, at level debug, scanned for every value the flows created or
// exchanged: a verification (same-device with wallet_nonce and response_code, one left to
// expire, wrong methods and paths on the way), an issuance with tx_code and DPoP, and an API key.
// Logs correlate by `stateRef` / `offerRef` (src/logRef.ts) instead, which is checked too.
import test from 'ava';
import { createHash } from 'node:crypto';
import { createLogger } from '../src/log.js';
import { TEST_WEBHOOK_SECRET } from './support/receiver.js';
import { BOOTSTRAP_KEY } from './support/service.js';
import { pidQuery, startVerificationHarness } from './support/wallet/connector.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { PRE_AUTHORIZED } from '../wallet/issuance.js';
import { createOffer, PID_CLAIMS } from './support/wallet/issuanceChecks.js';
import { dpopProof } from '../wallet/keys.js';
import { fetchAuthorizationRequest, postResponse } from './support/wallet/presentation.js';
import { buildVpToken, encryptResponse } from '../wallet/presentation.js';

/** The forms a value could take in a log line: as is, URL-encoded, base64(url), JSON-escaped. */
const formsOf = (value: string): string[] => {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [value, encodeURIComponent(value), bytes.toString('base64url'), bytes.toString('base64'), JSON.stringify(value).slice(1, -1)];
  return [...new Set(forms)];
};

const digestPrefix = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 16);

test('no state, nonce, code, token, key, secret or claim value reaches any log line at level debug', async (t) => {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  const h = await startVerificationHarness({}, { log });
  const secrets = new Map<string, string>([
    ['bootstrap API key', BOOTSTRAP_KEY],
    ['callback secret', TEST_WEBHOOK_SECRET],
    ['callback secret key bytes', TEST_WEBHOOK_SECRET.slice('whsec_'.length)],
  ]);
  const keep = (name: string, value: unknown): string => {
    if (typeof value !== 'string' || value === '') throw new Error(`${name} is not a string`);
    secrets.set(name, value);
    return value;
  };
  const refs: [string, string][] = [];
  try {
    const wallet = (path: string, init?: RequestInit) => h.service.wallet(path, init);

    // Verification, same-device, request_uri_method=post with a wallet_nonce.
    const created = await h.request({ dcql_query: pidQuery(), redirect_uri: 'https://rp.example/done' });
    const state = keep('state', created.state);
    await wallet(`/oidc4vp/${state}/request?flow_type=same-device`, { method: 'HEAD' });
    await wallet(`/oidc4vp/${state}/request?flow_type=sideways`);
    await wallet(`/oidc4vp/${state}/request?flow_type=same-device`, { method: 'PUT' });
    await wallet(`/oidc4vp/${state}/nowhere`);
    await wallet(`/oidc4vp/${state}/response`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'response=a&response=b' });
    const walletNonce = keep('wallet_nonce', 'wallet-nonce-4f0c1d2e9a8b7c6d');
    const request = await fetchAuthorizationRequest(h.endpoints, created.same_device_request_uri, { method: 'post', walletNonce });
    keep('nonce', request.nonce);
    keep('request object', request.jwt);
    const vpToken = await buildVpToken(request, { pid: { credential: await h.pid(), holder: h.holder } });
    keep('vp_token', JSON.stringify(vpToken));
    const jwe = keep('response JWE', await encryptResponse(request, { vp_token: vpToken, state }));
    const posted = await postResponse(h.endpoints, request, { response: jwe });
    t.is(posted.status, 200);
    const responseCode = keep('response_code', new URL(String(posted.body['redirect_uri'])).searchParams.get('response_code'));
    t.like(await h.callback(state), { status: 'FULFILLED', responseCode });
    // A late answer to the finished session.
    t.is((await postResponse(h.endpoints, request, { response: jwe })).status, 400);

    // A session fetched and then left to expire.
    // Long enough for the fetch to come first on a busy machine; the callback wait is bounded.
    const expiring = await h.request({ dcql_query: pidQuery(), expires_in: 3 });
    keep('expired session state', expiring.state);
    keep('expired session nonce', (await fetchAuthorizationRequest(h.endpoints, expiring.cross_device_request_uri)).nonce);
    t.like(await h.callback(expiring.state), { status: 'EXPIRED' });

    // Issuance with tx_code: a wrong code first, then the whole flow step by step.
    const offer = await createOffer(h.service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'text', length: 12 } });
    const offerId = keep('offer_id', offer.offer_id);
    const txCode = keep('tx_code', offer.tx_code_value);
    const w = await IssuanceWallet.create(h.service.config.publicUrl, h.service.service.publicListenUrl);
    const resolved = await w.resolveOffer(offer.credential_offer_uri);
    const code = keep('pre-authorized code', resolved.body.grants[PRE_AUTHORIZED]['pre-authorized_code']);
    const wrongTxCode = keep('wrong tx_code', txCode === 'ABCDEFGHJKMN' ? 'NMKJHGFEDCBA' : 'ABCDEFGHJKMN');
    t.is((await w.token(code, { txCode: wrongTxCode })).status, 400);
    const tokenProof = keep('token DPoP proof', await dpopProof(w.dpopKey, { htm: 'POST', htu: w.tokenUrl }));
    const token = await w.token(code, { txCode, dpop: tokenProof });
    t.is(token.status, 200);
    const accessToken = keep('access token', token.body['access_token']);
    const cNonce = keep('c_nonce', await w.nonce());
    const keyProof = keep('key proof', await w.keyProof({ nonce: cNonce }));
    const credentialProof = keep('credential DPoP proof', await dpopProof(w.dpopKey, { htm: 'POST', htu: w.credentialUrl, accessToken }));
    const issued = await w.credential(accessToken, { credential_configuration_id: 'pid', proofs: { jwt: [keyProof] } }, { dpop: credentialProof });
    t.is(issued.status, 200);
    keep('credential', (issued.body['credentials'] as { credential: string }[])[0]!.credential);
    t.is((await w.token(code, { txCode })).status, 400);
    // Suspended and reinstated: the status routes log the change by offerRef too.
    for (const status of ['suspended', 'valid']) {
      const changed = await h.service.management(`/offers/${offerId}/credential-status`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status }) });
      t.is(changed.status, 200);
    }
    for (const [name, value] of [['given_name', 'Erika'], ['family_name', 'Mustermann'], ['birthdate', '1964-08-12'], ['locality', 'Köln']] as const) {
      keep(`claim ${name}`, value);
    }

    // A resource API key, created and used.
    const createdKey = await h.service.management('/api-keys', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    t.is(createdKey.status, 201);
    const apiKey = keep('API key secret', ((await createdKey.json()) as { data: { secret: unknown } }).data.secret);
    t.is((await h.service.management('/tenant', { key: apiKey })).status, 200);
    refs.push(['stateRef', state], ['stateRef', expiring.state], ['offerRef', offerId]);

  } finally {
    await h.close();
  }
  t.true(lines.some((line) => line.includes('"msg":"request"')), 'request lines were captured');
  const leaks: string[] = [];
  for (const [index, line] of lines.entries()) {
    for (const [name, value] of secrets) {
      if (formsOf(value).some((form) => line.includes(form))) leaks.push(`line ${index} carries the ${name}: ${line.slice(0, 300)}`);
    }
  }
  t.deepEqual(leaks, []);
  // The correlation an operator computes from the state or offer id the integrator holds.
  const logged = lines.join('\n');
  for (const [field, value] of refs) t.true(logged.includes(`"${field}":"${digestPrefix(value)}"`), `${field} of ${value}`);
});
