// The credential step's use case (src/issuance/credential/issueCredential.ts) called directly,
// without HTTP, on a real store with real DPoP and key proofs and the real signers: the
// credential signed by its format's signer and the offer ended ISSUED, each check refusing with
// its own error, and a credential that cannot be signed failing the offer.
import test from 'ava';
import { compactVerify, importX509, SignJWT } from 'jose';
import { offer, offerStream } from '../streams/offer.js';
import { loadStream } from '../src/eventstore/handle.js';
import { issueCredential, type CredentialRequestInput } from '../src/issuance/credential/issueCredential.js';
import { redeemToken } from '../src/issuance/token/redeemToken.js';
import type { CredentialSigners } from '../src/issuance/credentialSigner.js';
import { leftOf, rightOf } from './support/either.js';
import { metadata, newWalletKey, PATHS, withSteps, type Steps } from './support/issuanceSteps.js';
import type { WalletKey } from '../wallet/keys.js';

interface Holding {
  readonly offerId: string;
  readonly accessToken: string;
  readonly dpopKey: WalletKey;
  readonly holder: WalletKey;
}

/** An offer whose pre-authorized code was redeemed by the token step. */
const holding = async (steps: Steps): Promise<Holding> => {
  const offered = await steps.offer();
  const dpopKey = await newWalletKey();
  const token = rightOf(
    await redeemToken(steps.ports, { request: steps.preAuthorized(offered.preAuthorizedCode), attestation: undefined, attestationPop: undefined, dpop: await steps.dpop(dpopKey, PATHS.token), metadata }),
  );
  return { offerId: offered.offerId, accessToken: token.accessToken, dpopKey, holder: await newWalletKey() };
};

const request = async (steps: Steps, held: Holding, over: Partial<CredentialRequestInput> & { readonly body?: unknown } = {}): Promise<CredentialRequestInput> => {
  const body = over.body ?? { credential_configuration_id: 'pid', proofs: { jwt: [await steps.keyProof(held.holder)] } };
  return {
    authorization: `DPoP ${held.accessToken}`,
    accessTokenInQuery: false,
    dpop: await steps.dpop(held.dpopKey, PATHS.credential, held.accessToken),
    readBody: () => Promise.resolve(body),
    metadata,
    ...over,
  };
};

const stateOf = async (steps: Steps, offerId: string) => rightOf(await loadStream(steps.ports.store, offer, offerStream(offerId))).state;

test('given a DPoP-bound access token and a key proof, the credential is an SD-JWT VC signed by the Issuer Signing Certificate, bound to the holder key, and the offer is ISSUED', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    const issued = rightOf(await issueCredential(steps.ports, await request(steps, held)));
    t.true(issued.dpopNonce.length > 0);
    const [jwt] = issued.credential.split('~');
    const leaf = await importX509(`-----BEGIN CERTIFICATE-----\n${steps.ports.x5c[0]}\n-----END CERTIFICATE-----`, 'ES256');
    const verified = await compactVerify(jwt!, leaf);
    t.is(verified.protectedHeader.typ, 'dc+sd-jwt');
    const payload = JSON.parse(Buffer.from(verified.payload).toString('utf8')) as { iss: string; cnf: { jwk: unknown }; status?: unknown };
    t.is(payload.iss, 'https://issuer.example');
    t.deepEqual(payload.cnf.jwk, held.holder.publicJwk);
    t.truthy(payload.status);
    t.like(await stateOf(steps, held.offerId), { status: 'ISSUED', claimsPurged: true });
    // The token opened one credential: used again, the offer has ended.
    t.deepEqual(leftOf(await issueCredential(steps.ports, await request(steps, held))), { _tag: 'AccessTokenEnded' });
  });
});

test('the access token: in the header as DPoP, never in the query, and one the offer knows', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    t.deepEqual(leftOf(await issueCredential(steps.ports, await request(steps, held, { accessTokenInQuery: true }))), { _tag: 'AccessTokenInQuery' });
    t.deepEqual(leftOf(await issueCredential(steps.ports, await request(steps, held, { authorization: `Bearer ${held.accessToken}` }))), { _tag: 'DpopAccessTokenMissing' });
    t.deepEqual(leftOf(await issueCredential(steps.ports, await request(steps, { ...held, accessToken: `${held.accessToken.slice(0, -2)}xx` }))), { _tag: 'AccessTokenUnknown' });
    t.like(await stateOf(steps, held.offerId), { status: 'OFFER_CREATED' });
  });
});

test('the DPoP proof must be signed with the key the access token is bound to, and carry its ath', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    const other = await newWalletKey();
    t.deepEqual(leftOf(await issueCredential(steps.ports, await request(steps, held, { dpop: await steps.dpop(other, PATHS.credential, held.accessToken) }))), {
      _tag: 'CredentialDpopProofInvalid',
      reason: 'The DPoP proof is not signed with the key the access token is bound to.',
    });
    t.like(leftOf(await issueCredential(steps.ports, await request(steps, held, { dpop: await steps.dpop(held.dpopKey, PATHS.credential) }))), { _tag: 'CredentialDpopProofInvalid' });
    t.like(await stateOf(steps, held.offerId), { status: 'OFFER_CREATED' });
  });
});

test('the request: no encryption, the offered configuration, exactly one key proof, with a fresh c_nonce, addressed to this issuer', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    const proof = await steps.keyProof(held.holder);
    const asking = (body: unknown) => request(steps, held, { body });
    t.deepEqual(leftOf(await issueCredential(steps.ports, await asking({ credential_configuration_id: 'pid', proofs: { jwt: [proof] }, credential_response_encryption: {} }))), { _tag: 'EncryptionUnsupported' });
    t.like(leftOf(await issueCredential(steps.ports, await asking({ proofs: { jwt: [proof] } }))), { _tag: 'CredentialRequestMalformed' });
    t.deepEqual(leftOf(await issueCredential(steps.ports, await asking({ credential_configuration_id: 'mdl', proofs: { jwt: [proof] } }))), { _tag: 'CredentialConfigurationNotOffered' });
    t.like(leftOf(await issueCredential(steps.ports, await asking({ credential_configuration_id: 'pid', proofs: { jwt: [proof, proof] } }))), { _tag: 'CredentialRequestMalformed' });
    t.like(leftOf(await issueCredential(steps.ports, await asking({ credential_configuration_id: 'pid', proofs: { jwt: [await steps.keyProof(held.holder, 'made-up')] } }))), { _tag: 'KeyProofNonceInvalid' });
    const wrongAudience = await new SignJWT({ aud: 'https://other.example', iat: Math.floor(Date.now() / 1000), nonce: 'n' })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: held.holder.publicJwk })
      .sign(held.holder.privateKey);
    t.like(leftOf(await issueCredential(steps.ports, await asking({ credential_configuration_id: 'pid', proofs: { jwt: [wrongAudience] } }))), { _tag: 'KeyProofInvalid' });
    // None of these refusals touched the offer: the credential is still issued.
    rightOf(await issueCredential(steps.ports, await request(steps, held)));
  });
});

test('a c_nonce is spent by the key proof that carries it', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    const proof = await steps.keyProof(held.holder);
    rightOf(await issueCredential(steps.ports, await request(steps, held, { body: { credential_configuration_id: 'pid', proofs: { jwt: [proof] } } })));
    const second = await holding(steps);
    t.like(leftOf(await issueCredential(steps.ports, await request(steps, second, { body: { credential_configuration_id: 'pid', proofs: { jwt: [proof] } } }))), { _tag: 'KeyProofNonceInvalid' });
  });
});

test('a credential its format\'s signer cannot sign fails the offer with the reason for the integrator, and its claims are destroyed', async (t) => {
  await withSteps(async (steps) => {
    const held = await holding(steps);
    const failing: CredentialSigners = { ...steps.ports.formats, 'dc+sd-jwt': { sign: () => Promise.reject(new Error('internal detail')) } };
    t.deepEqual(leftOf(await issueCredential({ ...steps.ports, formats: failing }, await request(steps, held))), { _tag: 'IssuanceFailed' });
    t.like(await stateOf(steps, held.offerId), { status: 'FAILED', claimsPurged: true });
    const read = await steps.ports.store.readStream(offerStream(held.offerId));
    const events = read._tag === 'Found' ? read.events : [];
    t.true(events.some((e) => e.type === 'OfferFailed' && (e.data as { errorDetails: string }).errorDetails === 'credential signing failed'));
  });
});
