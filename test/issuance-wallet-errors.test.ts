// Every wallet-facing failure of the issuance flow is an OAuth error with the right status, and
// changes nothing it should not: a refused request leaves the offer usable by the genuine wallet.
import test from 'ava';
import { startTestService, type TestService } from './support/service.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { PRE_AUTHORIZED } from '../wallet/issuance.js';
import { createOffer, PID_CLAIMS, waitForOffer, type CreatedOffer } from './support/wallet/issuanceChecks.js';
import { dpopProof, newWalletKey } from '../wallet/keys.js';

let service: TestService;

test.before(async () => {
  service = await startTestService({ env: { TX_CODE_MAX_ATTEMPTS: '3' } });
});

test.after.always(async () => {
  await service?.cleanup();
});

const wallet = () => IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);

const offerWith = (txCode: boolean): Promise<CreatedOffer> =>
  createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, ...(txCode ? { tx_code: { input_mode: 'numeric', length: 6 } } : {}) });

const codeOf = async (w: IssuanceWallet, created: CreatedOffer): Promise<string> =>
  (await w.resolveOffer(created.credential_offer_uri)).body.grants[PRE_AUTHORIZED]['pre-authorized_code'];

/** A wallet holding a DPoP-bound access token for a fresh offer. */
const withToken = async (): Promise<{ w: IssuanceWallet; accessToken: string }> => {
  const w = await wallet();
  const token = await w.token(await codeOf(w, await offerWith(false)));
  if (token.status !== 200) throw new Error(JSON.stringify(token.body));
  return { w, accessToken: String(token.body['access_token']) };
};

const request = async (w: IssuanceWallet, proof?: string) => ({
  credential_configuration_id: 'pid',
  proofs: { jwt: [proof ?? (await w.keyProof({ nonce: await w.nonce() }))] },
});

test('the token response is a DPoP-bound, non-cacheable access token', async (t) => {
  const w = await wallet();
  const token = await w.token(await codeOf(w, await offerWith(false)));
  t.is(token.status, 200);
  t.is(token.body['token_type'], 'DPoP');
  t.is(typeof token.body['access_token'], 'string');
  t.true((token.body['expires_in'] as number) > 0);
  t.is(token.headers.get('cache-control'), 'no-store');
});

test('a wrong tx_code is invalid_grant and does not spend the code; the right one still works', async (t) => {
  const created = await offerWith(true);
  const w = await wallet();
  const code = await codeOf(w, created);
  const wrong = created.tx_code_value === '000000' ? '111111' : '000000';
  const refused = await w.token(code, { txCode: wrong });
  t.is(refused.status, 400);
  t.is(refused.body['error'], 'invalid_grant');
  t.is(refused.headers.get('cache-control'), 'no-store');
  const accepted = await w.token(code, { txCode: created.tx_code_value! });
  t.is(accepted.status, 200);
});

test('tx_code missing where required, or sent where none was set, is invalid_request', async (t) => {
  const w = await wallet();
  const missing = await w.token(await codeOf(w, await offerWith(true)));
  t.is(missing.status, 400);
  t.is(missing.body['error'], 'invalid_request');
  const unexpected = await w.token(await codeOf(w, await offerWith(false)), { txCode: '123456' });
  t.is(unexpected.status, 400);
  t.is(unexpected.body['error'], 'invalid_request');
});

test('the last allowed wrong tx_code fails the offer: FAILED with errorDetails, claims purged, offer gone', async (t) => {
  const created = await offerWith(true);
  const w = await wallet();
  const code = await codeOf(w, created);
  const wrong = created.tx_code_value === '000000' ? '111111' : '000000';
  for (let i = 0; i < 3; i++) t.is((await w.token(code, { txCode: wrong })).body['error'], 'invalid_grant');
  const status = await waitForOffer(service, created.offer_id, (b) => b.status === 'FAILED' && b.claims_purged);
  t.regex(status.error_details ?? '', /transaction code/);
  t.is((await w.token(code, { txCode: created.tx_code_value! })).body['error'], 'invalid_grant');
  t.is((await w.resolveOffer(created.credential_offer_uri)).status, 404);
  t.is(await service.service.context.dataKeys.find(created.offer_id), undefined);
});

test('a pre-authorized code is redeemed once; an unknown one is invalid_grant', async (t) => {
  const w = await wallet();
  const code = await codeOf(w, await offerWith(false));
  t.is((await w.token(code)).status, 200);
  const again = await w.token(code);
  t.is(again.status, 400);
  t.is(again.body['error'], 'invalid_grant');
  const forged = await w.token(`${code.split('.')[0]}.${'A'.repeat(43)}`);
  t.is(forged.body['error'], 'invalid_grant');
  t.is((await w.token('nonsense')).body['error'], 'invalid_grant');
});

test('a token request without DPoP is refused and does not spend the code', async (t) => {
  const w = await wallet();
  const code = await codeOf(w, await offerWith(false));
  const response = await w.token(code, { dpop: null });
  t.is(response.status, 400);
  t.is(response.body['error'], 'invalid_request');
  t.is((await w.token(code)).status, 200);
});

test('a replayed DPoP proof (same jti) is invalid_dpop_proof', async (t) => {
  const w = await wallet();
  const proof = await dpopProof(w.dpopKey, { htm: 'POST', htu: w.tokenUrl });
  t.is((await w.token(await codeOf(w, await offerWith(false)), { dpop: proof })).status, 200);
  const replay = await w.token(await codeOf(w, await offerWith(false)), { dpop: proof });
  t.is(replay.status, 400);
  t.is(replay.body['error'], 'invalid_dpop_proof');
});

test('DPoP proofs with the wrong htu, htm, typ, a stale iat or a key other than their jwk are invalid_dpop_proof', async (t) => {
  const w = await wallet();
  const code = await codeOf(w, await offerWith(false));
  const other = await newWalletKey();
  const now = Math.floor(Date.now() / 1000);
  const bad = [
    await dpopProof(w.dpopKey, { htm: 'POST', htu: `${service.config.publicUrl}/oidc4vci/credential` }),
    await dpopProof(w.dpopKey, { htm: 'POST', htu: 'https://elsewhere.example/oidc4vci/token' }),
    await dpopProof(w.dpopKey, { htm: 'GET', htu: w.tokenUrl }),
    await dpopProof(w.dpopKey, { htm: 'POST', htu: w.tokenUrl, typ: 'JWT' }),
    await dpopProof(w.dpopKey, { htm: 'POST', htu: w.tokenUrl, iat: now - 3600 }),
    await dpopProof(w.dpopKey, { htm: 'POST', htu: w.tokenUrl, headerJwk: other.publicJwk }),
  ];
  for (const proof of bad) {
    const response = await w.token(code, { dpop: proof });
    t.is(response.status, 400);
    t.is(response.body['error'], 'invalid_dpop_proof');
  }
  t.is((await w.token(code)).status, 200);
});

test('a key proof with the wrong aud, the wrong typ or signed by a key other than its jwk is invalid_proof', async (t) => {
  const { w, accessToken } = await withToken();
  const other = await newWalletKey();
  const proofs = [
    await w.keyProof({ nonce: await w.nonce(), aud: 'https://other-issuer.example' }),
    await w.keyProof({ nonce: await w.nonce(), typ: 'JWT' }),
    await w.keyProof({ nonce: await w.nonce(), headerJwk: other.publicJwk }),
    await w.keyProof({ nonce: await w.nonce(), iat: Math.floor(Date.now() / 1000) - 3600 }),
  ];
  for (const proof of proofs) {
    const response = await w.credential(accessToken, await request(w, proof));
    t.is(response.status, 400);
    t.is(response.body['error'], 'invalid_proof');
  }
  t.is((await w.credential(accessToken, await request(w))).status, 200);
});

test('a reused, unknown or missing c_nonce is invalid_nonce', async (t) => {
  const { w, accessToken } = await withToken();
  const nonce = await w.nonce();
  const first = await withToken();
  t.is((await first.w.credential(first.accessToken, await request(first.w, await first.w.keyProof({ nonce })))).status, 200);
  for (const proof of [
    await w.keyProof({ nonce }),
    await w.keyProof({ nonce: 'made-up-nonce' }),
    await w.keyProof({ nonce: `${nonce.slice(0, -3)}AAA` }),
    await w.keyProof({ nonce: null }),
  ]) {
    const response = await w.credential(accessToken, await request(w, proof));
    t.is(response.status, 400);
    t.is(response.body['error'], 'invalid_nonce');
  }
  t.is((await w.credential(accessToken, await request(w))).status, 200);
});

test('the credential endpoint wants the token as DPoP in the header, with a proof bound to it', async (t) => {
  const { w, accessToken } = await withToken();
  const inQuery = await w.credential(accessToken, await request(w), { query: `?access_token=${encodeURIComponent(accessToken)}` });
  t.is(inQuery.status, 400);
  t.is(inQuery.body['error'], 'invalid_request');
  const bearer = await w.credential(accessToken, await request(w), { authorization: `Bearer ${accessToken}` });
  t.is(bearer.status, 401);
  t.is(bearer.body['error'], 'invalid_token');
  t.regex(bearer.headers.get('www-authenticate') ?? '', /^DPoP /);
  const unknown = await w.credential(`${accessToken.slice(0, -4)}AAAA`, await request(w));
  t.is(unknown.status, 401);
  t.is(unknown.body['error'], 'invalid_token');
  const noProof = await w.credential(accessToken, await request(w), { dpop: null });
  t.is(noProof.status, 401);
  t.is(noProof.body['error'], 'invalid_dpop_proof');
  const otherKey = await newWalletKey();
  const foreign = await w.credential(accessToken, await request(w), {
    dpop: await dpopProof(otherKey, { htm: 'POST', htu: w.credentialUrl, accessToken }),
  });
  t.is(foreign.status, 401);
  t.is(foreign.body['error'], 'invalid_dpop_proof');
  const noAth = await w.credential(accessToken, await request(w), { dpop: await dpopProof(w.dpopKey, { htm: 'POST', htu: w.credentialUrl }) });
  t.is(noAth.body['error'], 'invalid_dpop_proof');
  const wrongType = await w.credential(accessToken, { ...(await request(w)), credential_configuration_id: 'membership' });
  t.is(wrongType.body['error'], 'unknown_credential_configuration');
  const malformed = await w.credential(accessToken, { credential_configuration_id: 'pid', proof: { jwt: 'x' } });
  t.is(malformed.status, 400);
  t.is(malformed.body['error'], 'invalid_credential_request');
  const ok = await w.credential(accessToken, await request(w));
  t.is(ok.status, 200);
  t.is(ok.headers.get('cache-control'), 'no-store');
  const twice = await w.credential(accessToken, await request(w));
  t.is(twice.status, 401);
  t.is(twice.body['error'], 'invalid_token');
});
