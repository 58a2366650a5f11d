// The authorization code flow end to end, with an independent wallet library: the OpenWallet
// Foundation's oid4vc-ts (@openid4vc/openid4vci, @openid4vc/oauth2) pushes the authorization
// request with its wallet attestation and PKCE, follows the authorization URL, takes the code
// from the redirect the integrator's completion produced, redeems it with DPoP (retrying with the
// server's nonce), and fetches the credential, which @sd-jwt/sd-jwt-vc verifies.
import test, { type ExecutionContext } from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { Oauth2ClientErrorResponseError, setGlobalConfig } from '@openid4vc/oauth2';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import { loadStream } from '../src/eventstore/handle.js';
import { offer, offerStream } from '../streams/offer.js';
import { thumbprint } from '../wallet/keys.js';
import { acceptOffer } from '../wallet/commands.js';
import { createWalletProvider, localWalletProvider, type WalletProvider } from '../wallet/walletProvider.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';
import { documentedFetch } from './support/openapi.js';
import { createOffer, PID_CLAIMS, verifyIssuedCredential, waitForOffer } from './support/wallet/issuanceChecks.js';
import { libraryWallet, type LibraryWallet } from './support/wallet/libraryWallet.js';

const LOGIN = 'https://login.integrator.example/authenticate';
const REDIRECT_URI = 'https://wallet.example/callback';

let service: TestService;
let provider: WalletProvider;
let simulatorDir: string;
let simulatorProvider: WalletProvider;

test.before(async () => {
  // The service runs on loopback over plain HTTP; the library insists on https:// otherwise.
  setGlobalConfig({ allowInsecureUrls: true });
  provider = await createWalletProvider();
  simulatorDir = await mkdtemp(join(tmpdir(), 'wallet-simulator-'));
  simulatorProvider = await localWalletProvider(join(simulatorDir, 'provider.json'));
  service = await withReachablePublicUrl((env) =>
    startTestService({ env: { ...env, WALLET_PROVIDER_TRUST_ANCHORS: `${provider.anchor},${simulatorProvider.anchor}`, AUTHENTICATION_URL: LOGIN } }),
  );
});

test.after.always(async () => {
  await service?.cleanup();
  if (simulatorDir) await rm(simulatorDir, { recursive: true, force: true });
});

const complete = async (authorizationId: string, body: unknown) => {
  const response = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}/complete`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { redirect_to?: string } };
};

/** The wallet library's flow up to the authorization URL; the browser's visit to it is a plain GET here. */
const authorize = async (
  wallet: LibraryWallet,
  credentialOfferUri: string,
  options: { readonly dpop?: { readonly signer: LibraryWallet['dpopSigner'] }; readonly extra?: Record<string, string> } = {},
) => {
  const credentialOffer = await wallet.client.resolveCredentialOffer(credentialOfferUri);
  const issuerMetadata = await wallet.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
  // Openid4vciClient.initiateAuthorization does not pass `state` on; its Oauth2Client does, with issuer_state as an extra parameter.
  const initiated = await wallet.oauth2.initiateAuthorization({
    authorizationServerMetadata: issuerMetadata.authorizationServers[0]!,
    clientId: wallet.clientId,
    redirectUri: REDIRECT_URI,
    scope: 'pid',
    state: 'wallet-state-1',
    additionalRequestPayload: { issuer_state: credentialOffer.grants?.authorization_code?.issuer_state, ...options.extra },
    ...(options.dpop === undefined ? {} : { dpop: options.dpop }),
  });
  const visit = await documentedFetch('public')(initiated.authorizationRequestUrl, { redirect: 'manual' });
  const location = new URL(visit.headers.get('location') ?? '');
  return { credentialOffer, issuerMetadata, initiated, visit, location, authorizationId: location.searchParams.get('authorization_id') ?? '' };
};

test('an independent wallet library gets a credential through PAR, authorize, the integrator completing, the token with PKCE, DPoP nonce and attestation, and the credential endpoint', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const wallet = await libraryWallet(provider);
  const { credentialOffer, issuerMetadata, initiated, visit, location, authorizationId } = await authorize(wallet, created.credential_offer_uri);
  t.truthy(credentialOffer.grants?.authorization_code?.issuer_state);
  t.is(visit.status, 302);
  t.is(`${location.origin}${location.pathname}`, LOGIN);

  // The integrator's login page asks what is wanted, authenticates the user, completes.
  const asked = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}`);
  t.is(asked.status, 200);
  t.like(await asked.json(), { offer_id: created.offer_id, status: 'pending', credential_configuration_ids: ['pid'], client_id: wallet.clientId, wallet_name: 'oid4vc-ts wallet', wallet_provider: provider.issuer, claims_required: false });
  const completed = await complete(authorizationId, {});
  t.is(completed.status, 200);

  const response = wallet.client.parseAndVerifyAuthorizationResponseRedirectUrl({
    url: completed.body.redirect_to!,
    authorizationServerMetadata: issuerMetadata.authorizationServers[0]!,
  });
  t.is(response.state, 'wallet-state-1');
  if (response.code === undefined) return t.fail('no code in the redirect');
  const token = await wallet.client.retrieveAuthorizationCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    authorizationCode: response.code,
    pkceCodeVerifier: initiated.pkce?.codeVerifier,
    redirectUri: REDIRECT_URI,
    dpop: { signer: wallet.dpopSigner },
  });
  t.is(token.accessTokenResponse.token_type, 'DPoP');
  t.truthy(token.dpop?.nonce, 'the token answer carries the next DPoP nonce');

  const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
  const proof = await wallet.client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: 'pid', signer: wallet.holderSigner, nonce: c_nonce, clientId: wallet.clientId });
  const credentials = await wallet.client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: 'pid',
    proofs: { jwt: [proof.jwt] },
    dpop: token.dpop!,
  });
  const credential = (credentials.credentialResponse.credentials?.[0] as { credential?: unknown } | undefined)?.credential;
  t.is(typeof credential, 'string');
  const verified = await verifyIssuedCredential(service, credential as string);
  t.is(verified.claims['given_name'], 'Erika');

  await waitForOffer(service, created.offer_id, (o) => o.status === 'ISSUED' && o.claims_purged);
  const read = await service.service.store.readStream(offerStream(created.offer_id));
  if (read._tag !== 'Found') return t.fail('offer stream missing');
  t.deepEqual(read.events.map((e) => e.type), ['OfferCreated', 'AuthorizationRequestPushed', 'AuthorizationStarted', 'AuthorizationCompleted', 'AuthorizationCodeRedeemed', 'CredentialIssued', 'ClaimsPurged']);
  const statuses = read.events.flatMap((e) => {
    const cb = callbackOf(e);
    return isRight(cb) && cb.right ? [(cb.right.body as { status: string }).status] : [];
  });
  t.deepEqual(statuses, ['OFFER_CREATED', 'ISSUED']);
  // Which wallet got it, after which authentication: on the record, with no secret.
  const pushed = read.events[1]!.data as { wallet: { clientId: string; walletProvider: string; keyThumbprint: string } };
  t.like(pushed.wallet, { clientId: wallet.clientId, walletProvider: provider.issuer, keyThumbprint: await thumbprint(wallet.instanceKey.publicJwk) });
  const recorded = JSON.stringify(read.events.map((e) => e.data));
  for (const secret of [response.code, initiated.pkce!.codeVerifier, authorizationId, token.accessTokenResponse.access_token]) t.false(recorded.includes(secret));
});

test('an offer made without claims gets them when the integrator completes the authorization', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', grant: 'authorization_code' });
  const wallet = await libraryWallet(provider);
  const { credentialOffer, issuerMetadata, initiated, authorizationId } = await authorize(wallet, created.credential_offer_uri);
  const asked = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}`);
  t.like(await asked.json(), { claims_required: true });
  t.is((await complete(authorizationId, {})).status, 400, 'claims are required when the offer has none');
  const completed = await complete(authorizationId, { claims: { ...PID_CLAIMS, given_name: 'Zoë' } });
  t.is(completed.status, 200);
  const code = new URL(completed.body.redirect_to!).searchParams.get('code')!;
  const token = await wallet.client.retrieveAuthorizationCodeAccessTokenFromOffer({
    credentialOffer, issuerMetadata, authorizationCode: code, pkceCodeVerifier: initiated.pkce?.codeVerifier, redirectUri: REDIRECT_URI, dpop: { signer: wallet.dpopSigner },
  });
  const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
  const proof = await wallet.client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: 'pid', signer: wallet.holderSigner, nonce: c_nonce, clientId: wallet.clientId });
  const credentials = await wallet.client.retrieveCredentials({
    issuerMetadata, accessToken: token.accessTokenResponse.access_token, credentialConfigurationId: 'pid', proofs: { jwt: [proof.jwt] }, dpop: token.dpop!,
  });
  const verified = await verifyIssuedCredential(service, (credentials.credentialResponse.credentials?.[0] as { credential: string }).credential);
  t.is(verified.claims['given_name'], 'Zoë');
  const loaded = await loadStream(service.service.store, offer, offerStream(created.offer_id));
  t.true(isRight(loaded) && loaded.right.state.status === 'ISSUED');
});


test('the wallet simulator runs the flow: its local wallet provider attests it, the browser comes back to its loopback redirect URI', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'membership', grant: 'authorization_code' });
  const lines: string[] = [];
  const stored = await acceptOffer(created.credential_offer_uri, {
    file: join(simulatorDir, 'wallet.json'),
    say: (line) => lines.push(line),
    authorization: {
      providerFile: join(simulatorDir, 'provider.json'),
      // The browser: the authorization endpoint sends it to the integrator's page, which completes
      // the authorization and sends it on to the wallet's redirect URI.
      authenticate: async (authorizationUrl) => {
        const visit = await fetch(authorizationUrl, { redirect: 'manual' });
        const authorizationId = new URL(visit.headers.get('location')!).searchParams.get('authorization_id')!;
        const completed = await complete(authorizationId, { claims: { member_number: 'M-42', given_name: 'Erika', family_name: 'Mustermann' } });
        await fetch(completed.body.redirect_to!);
      },
    },
  });
  t.is('vct' in stored ? stored.vct : undefined, 'urn:example:membership:1');
  t.true(lines.some((line) => line.includes('/oidc4vci/authorize?')));
  await waitForOffer(service, created.offer_id, (o) => o.status === 'ISSUED');
});

/**
 * RFC 9449 section 10.1 with the library as the wallet: the code bound at PAR (its DPoP proof, or
 * `dpop_jkt`) is refused for a token request proving another key, unspent, and then redeemed with
 * the bound key; the credential follows.
 */
const boundFlow = async (t: ExecutionContext, bind: (wallet: LibraryWallet) => Promise<Parameters<typeof authorize>[2]>) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const wallet = await libraryWallet(provider);
  const { credentialOffer, issuerMetadata, initiated, authorizationId } = await authorize(wallet, created.credential_offer_uri, await bind(wallet));
  const completed = await complete(authorizationId, {});
  const code = new URL(completed.body.redirect_to!).searchParams.get('code')!;
  const redeem = (signer: LibraryWallet['dpopSigner']) =>
    wallet.client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer, issuerMetadata, authorizationCode: code, pkceCodeVerifier: initiated.pkce?.codeVerifier, redirectUri: REDIRECT_URI,
      dpop: { signer, ...(initiated.dpop?.nonce ? { nonce: initiated.dpop.nonce } : {}) },
    });
  const refused = await t.throwsAsync(redeem(wallet.otherDpopSigner), { instanceOf: Oauth2ClientErrorResponseError });
  t.is((refused as Oauth2ClientErrorResponseError).errorResponse.error, 'invalid_dpop_proof');
  const token = await redeem(wallet.dpopSigner);
  t.is(token.accessTokenResponse.token_type, 'DPoP');
  const { c_nonce } = await wallet.client.requestNonce({ issuerMetadata });
  const proof = await wallet.client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: 'pid', signer: wallet.holderSigner, nonce: c_nonce, clientId: wallet.clientId });
  const credentials = await wallet.client.retrieveCredentials({
    issuerMetadata, accessToken: token.accessTokenResponse.access_token, credentialConfigurationId: 'pid', proofs: { jwt: [proof.jwt] }, dpop: token.dpop!,
  });
  t.is(typeof (credentials.credentialResponse.credentials?.[0] as { credential?: unknown } | undefined)?.credential, 'string');
  const read = await service.service.store.readStream(offerStream(created.offer_id));
  if (read._tag !== 'Found') return t.fail('offer stream missing');
  const pushed = read.events.find((e) => e.type === 'AuthorizationRequestPushed')!.data as { dpopJkt?: string };
  t.is(pushed.dpopJkt, await thumbprint(wallet.dpopKey.publicJwk), 'the binding is on the record, so every instance and a restart keep it');
  t.deepEqual(read.events.map((e) => e.type).filter((type) => type.startsWith('AuthorizationCode')), ['AuthorizationCodeRedeemed'], 'the refused request spent nothing');
};

test('a code bound at PAR by the DPoP proof the library sends with it: a token request with another key is invalid_dpop_proof and spends nothing, then the bound key gets the token', async (t) => {
  await boundFlow(t, async (wallet) => ({ dpop: { signer: wallet.dpopSigner } }));
});

test('a code bound at PAR by dpop_jkt: a token request with another key is invalid_dpop_proof and spends nothing, then the bound key gets the token', async (t) => {
  await boundFlow(t, async (wallet) => ({ extra: { dpop_jkt: await thumbprint(wallet.dpopKey.publicJwk) } }));
});
