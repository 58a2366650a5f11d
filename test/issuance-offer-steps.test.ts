// The offer's steps as use cases, called directly without HTTP on a real store: creating an offer
// (src/issuance/offer/createOffer.ts), the Credential Offer the wallet resolves
// (src/issuance/offer/credentialOffer.ts), the c_nonce (src/issuance/nonce/), Type Metadata
// (src/issuance/metadata/) and the status of what was issued (src/issuance/status/).
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createOffer } from '../src/issuance/offer/createOffer.js';
import { credentialOffer } from '../src/issuance/offer/credentialOffer.js';
import { issueCNonce, spendCNonce } from '../src/issuance/nonce/cNonce.js';
import { typeMetadataOf } from '../src/issuance/metadata/documents.js';
import { credentialStatusOf, ownOffer, setCredentialStatus } from '../src/issuance/status/setCredentialStatus.js';
import { issueCredential } from '../src/issuance/credential/issueCredential.js';
import { redeemToken } from '../src/issuance/token/redeemToken.js';
import { AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT } from '../src/issuance/context.js';
import { leftOf, rightOf } from './support/either.js';
import { PID_CLAIMS } from './support/wallet/issuanceChecks.js';
import { metadata, newWalletKey, PATHS, withSteps } from './support/issuanceSteps.js';

test('an offer is refused for a configuration not configured, claims it does not accept, or an authorization code grant without an authentication page', async (t) => {
  await withSteps(async (steps) => {
    const deps = { ...steps.ports, offerTtlSeconds: 300 };
    t.deepEqual(leftOf(await createOffer(deps, 'tenant-1', { credential_configuration_id: 'nothing', claims: PID_CLAIMS }, metadata)), { _tag: 'UnknownCredentialConfiguration', id: 'nothing' });
    t.like(leftOf(await createOffer(deps, 'tenant-1', { credential_configuration_id: 'pid', claims: { given_name: 42 } }, metadata)), { _tag: 'InvalidClaims' });
    t.deepEqual(leftOf(await createOffer(deps, 'tenant-1', { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' }, metadata)), { _tag: 'NoAuthenticationUrl' });
  });
});

test('the Credential Offer names the grant of the offer, with its transaction code\'s shape; an unknown or ended offer is not found', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer({ txCode: true });
    const preAuthorized = rightOf(await credentialOffer(steps.ports, offered.offerId));
    t.deepEqual(preAuthorized.credential_configuration_ids, ['pid']);
    t.deepEqual(preAuthorized.grants, { [PRE_AUTHORIZED_CODE_GRANT]: { 'pre-authorized_code': offered.preAuthorizedCode, tx_code: { input_mode: 'numeric', length: 6 } } });
    const { offerId } = await steps.authorizationCodeOffer();
    t.deepEqual(Object.keys(rightOf(await credentialOffer(steps.ports, offerId)).grants), [AUTHORIZATION_CODE_GRANT]);
    t.deepEqual(leftOf(await credentialOffer(steps.ports, randomUUID())), { _tag: 'CredentialOfferNotFound' });
    t.deepEqual(leftOf(await credentialOffer(steps.ports, 'not-an-id')), { _tag: 'CredentialOfferNotFound' });
    const expired = { ...steps.ports, now: () => new Date(Date.now() + 301_000) };
    t.deepEqual(leftOf(await credentialOffer(expired, offered.offerId)), { _tag: 'CredentialOfferNotFound' });
  });
});

test('a c_nonce is accepted once, before its expiry, and only as the issuer made it', async (t) => {
  await withSteps(async (steps) => {
    const now = new Date();
    const nonce = issueCNonce(steps.ports.secrets, now, 60);
    t.is(await spendCNonce(steps.ports.store, steps.ports.secrets, nonce, now), undefined);
    t.is(await spendCNonce(steps.ports.store, steps.ports.secrets, nonce, now), 'used');
    t.is(await spendCNonce(steps.ports.store, steps.ports.secrets, issueCNonce(steps.ports.secrets, now, 60), new Date(now.getTime() + 61_000)), 'expired');
    t.is(await spendCNonce(steps.ports.store, steps.ports.secrets, `${nonce.slice(0, -2)}xx`, now), 'unknown');
  });
});

test('a c_nonce of one credential issuer is unknown at another: a tenant\'s own issuer\'s nonces carry its identifier in their MAC', async (t) => {
  await withSteps(async (steps) => {
    const now = new Date();
    const { secrets, store } = steps.ports;
    const a = 'https://issuer.example/issuers/tenant-a';
    const b = 'https://issuer.example/issuers/tenant-b';
    t.is(await spendCNonce(store, secrets, issueCNonce(secrets, now, 60, a), now, b), 'unknown');
    t.is(await spendCNonce(store, secrets, issueCNonce(secrets, now, 60, a), now), 'unknown');
    t.is(await spendCNonce(store, secrets, issueCNonce(secrets, now, 60), now, a), 'unknown');
    t.is(await spendCNonce(store, secrets, issueCNonce(secrets, now, 60, a), now, a), undefined);
  });
});

test('Type Metadata exists for SD-JWT VC configurations only', async (t) => {
  await withSteps(async (steps) => {
    t.like(rightOf(typeMetadataOf(steps.ports.issuer.configurations, 'pid')), { vct: 'urn:eudi:pid:1' });
    t.deepEqual(leftOf(typeMetadataOf(steps.ports.issuer.configurations, 'mdl')), { _tag: 'TypeMetadataNotFound' });
    t.deepEqual(leftOf(typeMetadataOf(steps.ports.issuer.configurations, 'nothing')), { _tag: 'TypeMetadataNotFound' });
  });
});

test('the status of what was issued: nothing before issuance, revoked for good, under If-Match only at the revision named, for the owning tenant only', async (t) => {
  await withSteps(async (steps) => {
    const offered = await steps.offer();
    t.deepEqual(leftOf(await credentialStatusOf(steps.ports.store, offered.offerId)), { _tag: 'NothingIssued' });
    const dpopKey = await newWalletKey();
    const token = rightOf(await redeemToken(steps.ports, { request: steps.preAuthorized(offered.preAuthorizedCode), attestation: undefined, attestationPop: undefined, dpop: await steps.dpop(dpopKey, PATHS.token), metadata }));
    const holder = await newWalletKey();
    rightOf(
      await issueCredential(steps.ports, {
        authorization: `DPoP ${token.accessToken}`,
        accessTokenInQuery: false,
        dpop: await steps.dpop(dpopKey, PATHS.credential, token.accessToken),
        readBody: async () => ({ credential_configuration_id: 'pid', proofs: { jwt: [await steps.keyProof(holder)] } }),
        metadata,
      }),
    );
    const valid = rightOf(await credentialStatusOf(steps.ports.store, offered.offerId));
    t.is(valid.state.status, 'valid');
    const set = (status: 'revoked' | 'valid', matches?: (etag: string) => boolean) =>
      setCredentialStatus(steps.ports.store, offered.offerId, { type: 'SetCredentialStatus', data: { status, changeId: randomUUID(), at: new Date().toISOString() } }, matches, metadata);
    t.deepEqual(leftOf(await set('revoked', (etag) => etag === '"999"')), { _tag: 'PreconditionFailed' });
    t.is(rightOf(await set('revoked', (etag) => etag === `"${valid.revision}"`)).state.status, 'revoked');
    t.deepEqual(leftOf(await set('valid')), { _tag: 'RevocationIsFinal' });
    t.true(await steps.readModels.waitFor(offered.position, 120_000));
    t.is(rightOf(ownOffer(steps.readModels.db, 'tenant-1', offered.offerId)), offered.offerId);
    t.deepEqual(leftOf(ownOffer(steps.readModels.db, 'tenant-2', offered.offerId)), { _tag: 'OfferNotFound' });
  });
});
