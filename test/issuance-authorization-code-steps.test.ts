// The authorization code flow's steps as use cases, called directly without HTTP on a real store
// with real wallet attestations, PKCE, DPoP proofs and signers: the pushed request
// (src/issuance/pushedAuthorization/), the authorization endpoint (src/issuance/authorization/),
// the integrator's answer (src/issuance/authorizationAnswer/), then the token and credential steps;
// and each step's main refusals, which record nothing.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { offer, offerStream } from '../streams/offer.js';
import { loadStream } from '../src/eventstore/handle.js';
import { issuerState } from '../src/issuance/codes.js';
import { parseAuthorizationRequest } from '../src/issuance/pushedAuthorization/request.js';
import { pushAuthorizationRequest } from '../src/issuance/pushedAuthorization/pushAuthorizationRequest.js';
import { parseStartRequest } from '../src/issuance/authorization/request.js';
import { startAuthorization } from '../src/issuance/authorization/startAuthorization.js';
import { answerAuthorization } from '../src/issuance/authorizationAnswer/answerAuthorization.js';
import { parseTokenRequest } from '../src/issuance/token/request.js';
import { redeemToken } from '../src/issuance/token/redeemToken.js';
import { issueCredential } from '../src/issuance/credential/issueCredential.js';
import { endpointUrl } from '../src/issuance/context.js';
import { dpopProof, type WalletKey } from '../wallet/keys.js';
import { leftOf, rightOf } from './support/either.js';
import { PID_CLAIMS } from './support/wallet/issuanceChecks.js';
import { metadata, newWalletKey, PATHS, PUBLIC_URL, withSteps, type Steps } from './support/issuanceSteps.js';

const CLIENT = 'wallet-1';
const REDIRECT = 'https://wallet.example/cb';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');

const parFields = (steps: Steps, offerId: string, over: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: CLIENT,
  redirect_uri: REDIRECT,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  issuer_state: issuerState(steps.ports.secrets, offerId),
  scope: 'pid',
  state: 'wallet-state',
  ...over,
});

const stateOf = async (steps: Steps, offerId: string) => rightOf(await loadStream(steps.ports.store, offer, offerStream(offerId))).state;

/** PAR and the authorization endpoint: the authorization_id the integrator's page receives. */
const started = async (steps: Steps, instance: WalletKey) => {
  const { offerId } = await steps.authorizationCodeOffer();
  const request = rightOf(parseAuthorizationRequest(parFields(steps, offerId), steps.ports));
  const pushed = rightOf(await pushAuthorizationRequest(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: undefined, metadata }));
  const start = rightOf(parseStartRequest({ client_id: CLIENT, request_uri: pushed.requestUri }));
  const redirect = new URL(rightOf(await startAuthorization(steps.ports, start, metadata)).redirectTo);
  return { offerId, pushed, redirect, authorizationId: redirect.searchParams.get('authorization_id') ?? '' };
};

test('the authorization code flow without HTTP: pushed, started, completed with claims, the code redeemed with PKCE and a DPoP nonce, the credential issued', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { offerId, pushed, redirect, authorizationId } = await started(steps, instance);
    t.true(pushed.requestUri.startsWith('urn:ietf:params:oauth:request_uri:'));
    t.is(`${redirect.origin}${redirect.pathname}`, 'https://login.example/authenticate');
    t.like(await stateOf(steps, offerId), { grant: { phase: 'authorizationPending' } });

    const answered = new URL(rightOf(await answerAuthorization(steps.ports, 'tenant-1', authorizationId, () => Promise.resolve({ claims: PID_CLAIMS }), metadata)).redirectTo);
    t.is(answered.searchParams.get('state'), 'wallet-state');
    t.is(answered.searchParams.get('iss'), PUBLIC_URL);
    const code = answered.searchParams.get('code') ?? '';
    t.like(await stateOf(steps, offerId), { grant: { phase: 'authorized' } });

    const dpopKey = await newWalletKey();
    const request = rightOf(parseTokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: CLIENT }));
    const tokenProof = (nonce?: string) => dpopProof(dpopKey, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, PATHS.token), ...(nonce === undefined ? {} : { nonce }) });
    // HAIP: the token request's DPoP proof carries the server's nonce; without it, the wallet is told it.
    const told = leftOf(await redeemToken(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: await tokenProof(), metadata }));
    if (told._tag !== 'TokenUseDpopNonce') return t.fail(`expected use_dpop_nonce, got ${told._tag}`);
    const token = rightOf(await redeemToken(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: await tokenProof(told.nonce), metadata }));

    const holder = await newWalletKey();
    const issued = rightOf(
      await issueCredential(steps.ports, {
        authorization: `DPoP ${token.accessToken}`,
        accessTokenInQuery: false,
        dpop: await dpopProof(dpopKey, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, PATHS.credential), accessToken: token.accessToken, nonce: token.dpopNonce }),
        readBody: async () => ({ credential_configuration_id: 'pid', proofs: { jwt: [await steps.keyProof(holder)] } }),
        metadata,
      }),
    );
    t.true(issued.credential.includes('~'));
    t.like(await stateOf(steps, offerId), { status: 'ISSUED' });
  });
});

test('a pushed request: the wallet must authenticate with its attestation, name an offer of the authorization code flow, and ask for what it offers', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { offerId } = await steps.authorizationCodeOffer();
    const request = rightOf(parseAuthorizationRequest(parFields(steps, offerId), steps.ports));
    t.like(leftOf(await pushAuthorizationRequest(steps.ports, { request, attestation: undefined, attestationPop: undefined, dpop: undefined, metadata })), { _tag: 'WalletUnauthenticated' });
    const attested = await steps.attested(CLIENT, instance);
    rightOf(await pushAuthorizationRequest(steps.ports, { request, ...attested, dpop: undefined, metadata }));
    // The same PoP again is a replay.
    t.like(leftOf(await pushAuthorizationRequest(steps.ports, { request, ...attested, dpop: undefined, metadata })), { _tag: 'WalletUnauthenticated' });
    const preAuthorized = await steps.offer();
    const other = rightOf(parseAuthorizationRequest(parFields(steps, preAuthorized.offerId), steps.ports));
    t.deepEqual(leftOf(await pushAuthorizationRequest(steps.ports, { request: other, ...(await steps.attested(CLIENT, instance)), dpop: undefined, metadata })), { _tag: 'IssuerStateUnknown' });
    t.like(await stateOf(steps, preAuthorized.offerId), { grant: { grant: 'pre-authorized_code', phase: 'offered' } });
    const mdl = rightOf(parseAuthorizationRequest(parFields(steps, offerId, { scope: 'mdl' }), steps.ports));
    t.deepEqual(leftOf(await pushAuthorizationRequest(steps.ports, { request: mdl, ...(await steps.attested(CLIENT, instance)), dpop: undefined, metadata })), { _tag: 'OfferForAnotherConfiguration' });
  });
});

test('the pushed request\'s parameters: a code response, no request object, a known scope, well-formed authorization_details, an S256 challenge', async (t) => {
  await withSteps(async (steps) => {
    const { offerId } = await steps.authorizationCodeOffer();
    const parse = (over: Record<string, string>) => parseAuthorizationRequest(parFields(steps, offerId, over), steps.ports);
    t.deepEqual(leftOf(parse({ response_type: 'token' })), { _tag: 'ResponseTypeUnsupported' });
    t.deepEqual(leftOf(parse({ request: 'eyJ...' })), { _tag: 'RequestObjectUnsupported' });
    t.deepEqual(leftOf(parse({ scope: 'nothing' })), { _tag: 'ScopeUnknown', scope: 'nothing' });
    t.like(leftOf(parse({ authorization_details: '[{"type":"other"}]' })), { _tag: 'AuthorizationDetailsInvalid' });
    t.deepEqual(leftOf(parse({ code_challenge_method: 'plain' })), { _tag: 'ParParameterInvalid', reason: 'code_challenge_method must be S256.' });
    t.deepEqual(leftOf(parse({ issuer_state: 'made-up' })), { _tag: 'ParParameterInvalid', reason: 'issuer_state is unknown.' });
  });
});

test('the authorization endpoint: the request_uri used once, by the client that pushed it', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { offerId } = await steps.authorizationCodeOffer();
    const request = rightOf(parseAuthorizationRequest(parFields(steps, offerId), steps.ports));
    const pushed = rightOf(await pushAuthorizationRequest(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: undefined, metadata }));
    t.deepEqual(leftOf(await startAuthorization(steps.ports, rightOf(parseStartRequest({ client_id: 'wallet-2', request_uri: pushed.requestUri })), metadata)), { _tag: 'AuthorizeClientMismatch' });
    const start = rightOf(parseStartRequest({ client_id: CLIENT, request_uri: pushed.requestUri }));
    rightOf(await startAuthorization(steps.ports, start, metadata));
    t.deepEqual(leftOf(await startAuthorization(steps.ports, start, metadata)), { _tag: 'RequestUriUnknown' });
    t.deepEqual(leftOf(parseStartRequest({ client_id: CLIENT })), { _tag: 'AuthorizeParameterInvalid', reason: 'request_uri is required: push the authorization request first.' });
    t.deepEqual(leftOf(parseStartRequest({ client_id: CLIENT, request_uri: ['a', 'b'] })), { _tag: 'AuthorizeParameterInvalid', reason: 'request_uri must appear once.' });
  });
});

test('the integrator\'s answer: its own tenant\'s authorization only, claims or a denial, claims its configuration accepts; a denial fails the offer', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { offerId, authorizationId } = await started(steps, instance);
    const answer = (tenantId: string, body: object) => answerAuthorization(steps.ports, tenantId, authorizationId, () => Promise.resolve(body), metadata);
    t.deepEqual(leftOf(await answer('tenant-2', { claims: PID_CLAIMS })), { _tag: 'AuthorizationNotFound' });
    t.deepEqual(leftOf(await answer('tenant-1', { claims: PID_CLAIMS, error: 'access_denied' })), { _tag: 'ClaimsOrError' });
    t.like(leftOf(await answer('tenant-1', { claims: { given_name: 42 } })), { _tag: 'ClaimsInvalid' });
    t.deepEqual(leftOf(await answer('tenant-1', {})), { _tag: 'ClaimsRequired' });
    t.like(await stateOf(steps, offerId), { status: 'OFFER_CREATED', grant: { phase: 'authorizationPending' } });
    const denied = new URL(rightOf(await answer('tenant-1', { error: 'access_denied', error_description: 'no' })).redirectTo);
    t.is(denied.searchParams.get('error'), 'access_denied');
    t.like(await stateOf(steps, offerId), { status: 'FAILED', claimsPurged: true, grant: { phase: 'denied' } });
    // Its claims destroyed with the offer, nothing can complete it any more.
    t.deepEqual(leftOf(await answer('tenant-1', { claims: PID_CLAIMS })), { _tag: 'OfferEnded' });
  });
});

test('claims given once the offer\'s configuration is gone are still only taken as an object: anything else is refused and records nothing', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { offerId, authorizationId } = await started(steps, instance);
    const { issuers } = steps.ports;
    const ports = { ...steps.ports, issuers: { identifierOf: issuers.identifierOf.bind(issuers), configurationOf: () => undefined } };
    const answer = (claims: unknown) => answerAuthorization(ports, 'tenant-1', authorizationId, () => Promise.resolve({ claims }), metadata);
    for (const claims of ['Erika', ['Erika'], 42]) {
      t.like(leftOf(await answer(claims)), { _tag: 'ClaimsInvalid', errors: [{ location: 'body.claims' }] });
    }
    t.like(await stateOf(steps, offerId), { status: 'OFFER_CREATED', grant: { phase: 'authorizationPending' } });
  });
});

test('an authorization is answered once; its code redeemed with the PKCE verifier of its request; used twice, refused and its token revoked', async (t) => {
  await withSteps(async (steps) => {
    const instance = await newWalletKey();
    const { authorizationId } = await started(steps, instance);
    const code = new URL(rightOf(await answerAuthorization(steps.ports, 'tenant-1', authorizationId, () => Promise.resolve({ claims: PID_CLAIMS }), metadata)).redirectTo).searchParams.get('code') ?? '';
    t.deepEqual(leftOf(await answerAuthorization(steps.ports, 'tenant-1', authorizationId, () => Promise.resolve({ claims: PID_CLAIMS }), metadata)), { _tag: 'AuthorizationEnded' });
    const dpopKey = await newWalletKey();
    const redeem = async (codeVerifier: string) => {
      const request = rightOf(parseTokenRequest({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: REDIRECT, client_id: CLIENT }));
      const told = leftOf(await redeemToken(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: await dpopProof(dpopKey, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, PATHS.token) }), metadata }));
      const nonce = told._tag === 'TokenUseDpopNonce' ? told.nonce : '';
      return redeemToken(steps.ports, { request, ...(await steps.attested(CLIENT, instance)), dpop: await dpopProof(dpopKey, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, PATHS.token), nonce }), metadata });
    };
    t.deepEqual(leftOf(await redeem(randomBytes(32).toString('base64url'))), { _tag: 'CodeVerifierMismatch' });
    const token = rightOf(await redeem(verifier));
    t.deepEqual(leftOf(await redeem(verifier)), { _tag: 'AuthorizationCodeUsed' });
    const credential = await issueCredential(steps.ports, {
      authorization: `DPoP ${token.accessToken}`,
      accessTokenInQuery: false,
      dpop: await dpopProof(dpopKey, { htm: 'POST', htu: endpointUrl(PUBLIC_URL, PATHS.credential), accessToken: token.accessToken, nonce: token.dpopNonce }),
      readBody: () => Promise.resolve({}),
      metadata,
    });
    t.deepEqual(leftOf(credential), { _tag: 'AccessTokenUnknown' });
  });
});
