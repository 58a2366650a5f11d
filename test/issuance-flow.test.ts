// Issuance end to end: an integrator creates an offer, the test wallet runs the pre-authorized
// code flow with DPoP, tx_code, a c_nonce and a key proof, and the credential is verified with an
// independent SD-JWT library. Afterwards the offer stream replays and its claims are gone.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { x509 } from '../src/crypto/x509.js';
import { loadSigningIdentity } from '../src/crypto/signingIdentity.js';
import { loadStream } from '../src/eventstore/handle.js';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import { Sealed } from '../streams/dataKey.js';
import { offer, offerStream } from '../streams/offer.js';
import { startTestService, type TestService } from './support/service.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { PRE_AUTHORIZED } from '../wallet/issuance.js';
import { thumbprint } from '../wallet/keys.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';

let service: TestService;

test.before(async () => {
  service = await startTestService();
});

test.after.always(async () => {
  await service?.cleanup();
});

const wallet = () => IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);

/** RFC 9278 over RFC 7638, computed here by hand rather than by the library the service uses. */
const rfc9278Uri = (jwk: JWK): string => {
  const { crv, kty, x, y } = jwk;
  const canonical = JSON.stringify({ crv, kty, x, y });
  return `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${createHash('sha256').update(canonical, 'utf8').digest('base64url')}`;
};

test('a wallet receives a PID with tx_code and DPoP; an independent SD-JWT library verifies it', async (t) => {
  const created = await createOffer(service, {
    credential_configuration_id: 'pid',
    claims: PID_CLAIMS,
    tx_code: { input_mode: 'numeric', length: 6, description: 'Sent to you by SMS' },
  });
  t.regex(created.tx_code_value ?? '', /^\d{6}$/);
  t.is(
    created.credential_offer_uri,
    `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${service.config.publicUrl}/oidc4vci/offers/${created.offer_id}`)}`,
  );

  const w = await wallet();
  const offered = await w.resolveOffer(created.credential_offer_uri);
  t.is(offered.status, 200);
  t.is(offered.body.credential_issuer, service.config.publicUrl);
  t.deepEqual(offered.body.credential_configuration_ids, ['pid']);
  t.deepEqual(offered.body.grants[PRE_AUTHORIZED].tx_code, { input_mode: 'numeric', length: 6, description: 'Sent to you by SMS' });

  const credential = await w.receive(created.credential_offer_uri, created.tx_code_value);
  const verified = await verifyIssuedCredential(service, credential);
  t.is(verified.header['typ'], 'dc+sd-jwt');
  t.is(verified.header['alg'], 'ES256');
  const identity = await loadSigningIdentity({
    name: 'issuer',
    certificateVariable: 'ISSUER_CERTIFICATE_FILE',
    keyVariable: 'ISSUER_KEY_FILE',
    certificateFile: undefined,
    keyFile: undefined,
    dataDir: service.dataDir,
    commonName: 'unused: the chain exists',
  });
  t.deepEqual(verified.header['x5c'], [...identity.x5c]);
  const ca = new x509.X509Certificate(await readFile(join(service.dataDir, 'issuer-identity', 'ca.pem'), 'utf8'));
  t.true(await verified.leaf.verify({ publicKey: ca.publicKey, signatureOnly: true }));

  // Registered claims are plain; the configured ones follow their sd rule.
  const p = verified.payload;
  t.is(p['iss'], service.config.publicUrl);
  t.is(p['vct'], 'urn:eudi:pid:1');
  t.is(typeof p['iat'], 'number');
  t.true((p['exp'] as number) > (p['iat'] as number));
  t.deepEqual((p['cnf'] as { jwk: unknown }).jwk, w.holderKey.publicJwk);
  // sub: the holder key's JWK Thumbprint URI (RFC 9278), plain like the other registered claims.
  t.is(p['sub'], rfc9278Uri(w.holderKey.publicJwk));
  t.is(p['issuing_authority'], 'DE');
  t.is(p['given_name'], undefined);
  t.is(p['birthdate'], undefined);
  t.true(Array.isArray(p['_sd']));
  t.is(p['_sd_alg'], 'sha-256');
  t.is((p['address'] as Record<string, unknown>)['locality'], undefined);
  t.is(verified.disclosures, 7);
  const c = verified.claims;
  t.is(c['given_name'], 'Erika');
  t.is(c['family_name'], 'Mustermann');
  t.is(c['birthdate'], '1964-08-12');
  t.deepEqual(c['nationalities'], ['DE']);
  t.deepEqual(c['address'], { locality: 'Köln', country: 'DE' });
  t.deepEqual(c['age_equal_or_over'], { '18': true });

  const status = await waitForOffer(service, created.offer_id, (b) => b.status === 'ISSUED' && b.claims_purged);
  t.is(status.error_details, undefined);
  t.not(await thumbprint(w.holderKey.publicJwk), '');
});

test('after issuance the offer stream replays, its events translate to the callbacks, and its claims are unrecoverable', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'membership', claims: { member_number: 'M-7', given_name: 'Zoë', family_name: 'Quux' } });
  const w = await wallet();
  const credential = await w.receive(created.credential_offer_uri);
  const verified = await verifyIssuedCredential(service, credential);
  t.is(verified.payload['member_number'], 'M-7');
  t.is(verified.claims['given_name'], 'Zoë');
  await waitForOffer(service, created.offer_id, (b) => b.claims_purged);

  const store = service.service.store;
  const loaded = await loadStream(store, offer, offerStream(created.offer_id));
  t.true(isRight(loaded));
  const read = await store.readStream(offerStream(created.offer_id));
  if (read._tag !== 'Found') return t.fail('offer stream missing');
  t.deepEqual(
    read.events.map((e) => e.type),
    ['OfferCreated', 'PreAuthorizedCodeRedeemed', 'CredentialIssued', 'ClaimsPurged'],
  );
  const callbacks = read.events.flatMap((e) => {
    const cb = callbackOf(e);
    return isRight(cb) && cb.right ? [cb.right] : [];
  });
  t.deepEqual(
    callbacks.map((cb) => cb?.body),
    [
      { eventId: created.offer_id, status: 'OFFER_CREATED', offerId: created.offer_id },
      { eventId: created.offer_id, status: 'ISSUED', offerId: created.offer_id },
    ],
  );
  t.true(callbacks.every((cb) => cb.sealed === undefined && cb.eventId === created.offer_id));

  // Nothing personal in the clear, and the sealed claims cannot be opened any more.
  const everything = JSON.stringify(read.events.map((e) => [e.data, e.metadata]));
  t.false(everything.includes('Zoë'));
  t.false(everything.includes('Quux'));
  t.is(await service.service.context.dataKeys.find(created.offer_id), undefined);
  const sealed = (read.events[0]!.data as { claims: unknown }).claims;
  t.true(Sealed.is(sealed));
  const keyStream = await store.readStream(`datakey-${created.offer_id}`);
  t.is(keyStream._tag, 'StreamDeleted');
});

test('the issuer metadata, authorization server metadata and type metadata describe the configurations', async (t) => {
  const base = service.config.publicUrl;
  const w = await wallet();
  const issuer = (await (await w.fetch(`${base}/.well-known/openid-credential-issuer`)).json()) as Record<string, any>;
  t.is(issuer['credential_issuer'], base);
  t.is(issuer['credential_endpoint'], `${base}/oidc4vci/credential`);
  t.is(issuer['nonce_endpoint'], `${base}/oidc4vci/nonce`);
  t.is(issuer['authorization_servers'], undefined);
  const pid = issuer['credential_configurations_supported']['pid'];
  t.is(pid.format, 'dc+sd-jwt');
  t.is(pid.vct, 'urn:eudi:pid:1');
  t.deepEqual(pid.cryptographic_binding_methods_supported, ['jwk']);
  t.deepEqual(pid.credential_signing_alg_values_supported, ['ES256']);
  t.deepEqual(pid.proof_types_supported, { jwt: { proof_signing_alg_values_supported: ['ES256'] } });
  t.deepEqual(pid.credential_metadata.display, [{ name: 'Person identification data', locale: 'en' }]);
  t.deepEqual(pid.credential_metadata.claims[0], { path: ['family_name'], mandatory: true, display: [{ name: 'Family name', locale: 'en' }] });
  t.is(pid.display, undefined);
  t.is(pid.claims, undefined);

  const as = (await (await w.fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  t.is(as['issuer'], base);
  t.is(as['token_endpoint'], `${base}/oidc4vci/token`);
  t.is(as['pre-authorized_grant_anonymous_access_supported'], true);
  t.deepEqual(as['dpop_signing_alg_values_supported'], ['ES256']);

  const type = (await (await w.fetch(`${base}/oidc4vci/types/membership`)).json()) as Record<string, any>;
  t.is(type['vct'], 'urn:example:membership:1');
  t.deepEqual(type['display'], [{ lang: 'en', name: 'Membership card' }]);
  t.deepEqual(type['claims'][0], { path: ['member_number'], sd: 'never', mandatory: true, display: [{ lang: 'en', label: 'Member number' }] });
  t.is(type['claims'][3].sd, 'allowed');
  const missing = await w.fetch(`${base}/oidc4vci/types/nope`);
  t.is(missing.status, 404);
});

test('the nonce endpoint hands out a fresh c_nonce each time, not cacheable', async (t) => {
  const w = await wallet();
  const response = await w.fetch(`${service.config.publicUrl}/oidc4vci/nonce`, { method: 'POST' });
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  const { c_nonce } = (await response.json()) as { c_nonce: string };
  t.not(c_nonce, await w.nonce());
});

test('a configuration with sub_jwk_thumbprint: false issues credentials without sub; by default they carry the holder key\'s thumbprint URI', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sub-optout-'));
  const file = join(dir, 'configurations.json');
  const configuration = (id: string, more: Record<string, unknown>) => ({
    id, vct: `urn:example:${id}:1`, display: [{ lang: 'en', name: id }], claims: [{ path: ['seat'], mandatory: true, sd: 'never', display: [] }], ...more,
  });
  await writeFile(file, JSON.stringify({ credential_configurations: [configuration('ticket', { sub_jwk_thumbprint: false }), configuration('pass', {})] }));
  const other = await startTestService({ env: { CREDENTIAL_CONFIGURATIONS: file } });
  try {
    const receive = async (id: string) => {
      const created = await createOffer(other, { credential_configuration_id: id, claims: { seat: '12A' } });
      const w = await IssuanceWallet.create(other.config.publicUrl, other.service.publicListenUrl);
      return { verified: await verifyIssuedCredential(other, await w.receive(created.credential_offer_uri)), holder: w.holderKey.publicJwk };
    };
    const off = await receive('ticket');
    t.false('sub' in off.verified.payload);
    t.is(off.verified.payload['seat'], '12A');
    const on = await receive('pass');
    t.is(on.verified.payload['sub'], rfc9278Uri(on.holder));
  } finally {
    await other.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
});
