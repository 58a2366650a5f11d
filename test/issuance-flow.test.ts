// Issuance end to end: an integrator creates an offer, the test wallet runs the pre-authorized
// code flow with DPoP, tx_code, a c_nonce and a key proof, and the credential is verified with an
// independent SD-JWT library. Afterwards the offer stream replays and its claims are gone.
import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
