// Wallet providers from a TS 119 602 List of Trusted Entities (src/trust/walletProviderTrust.ts):
// a wallet providers list, signed for real by a pinned list signer and served on loopback, is the
// connector's only source of trusted wallet providers (no WALLET_PROVIDER_TRUST_ANCHORS). A listed
// provider's wallet goes through PAR and the token endpoint; a withdrawn, a suspended, an
// unlisted and an expired provider's wallets, and an expired attestation, are refused with invalid_client and the
// reason, appending nothing. A pre-authorized redemption with an attestation records the wallet.
// Then the rules on their own: a stale list cannot vouch (fail closed), a list's withdrawal wins
// over an anchor, and a wallet provider's service vouches for no credential issuer.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { isRight } from 'fp-ts/lib/Either.js';
import { x509 } from '../src/crypto/x509.js';
import { offerStream } from '../streams/offer.js';
import { resolveIssuer, type TrustSnapshot } from '../src/trust/matching.js';
import { SnapshotIndex, type ListEntry } from '../src/trust/snapshotIndex.js';
import type { TrustService } from '../src/trust/trustList.js';
import { walletProviderTrust } from '../src/trust/walletProviderTrust.js';
import { dpopProof, newWalletKey, thumbprint, type WalletKey } from '../wallet/keys.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../wallet/walletProvider.js';
import { startCrlServer, type CrlServer } from './support/crlServer.js';
import { startTestService, withReachablePublicUrl, type TestService } from './support/service.js';
import { createListSigner, loteJson, signLote } from './support/trustLists.js';
import { createOffer, PID_CLAIMS } from './support/wallet/issuanceChecks.js';

// TS 119 602 V1.1.1, the EU wallet providers list.
const WALLET_PROVIDERS_LIST = 'http://uri.etsi.org/19602/LoTEType/EUWalletProvidersList';
const WALLET_SOLUTION_ISSUANCE = 'http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance';
const NOTIFIED = 'http://uri.etsi.org/19602/WalletProvidersList/SvcStatus/notified';
const WITHDRAWN = 'http://uri.etsi.org/19602/WalletProvidersList/SvcStatus/withdrawn';
// TS 119 602 names no suspension for wallet providers: a scheme's own status, given its meaning by the source's statusMap.
const SUSPENDED = 'https://wallet-scheme.example/status/suspended';

const LOGIN = 'https://login.integrator.example/authenticate';
const REDIRECT_URI = 'https://wallet.example/callback';
const DAY = 86_400_000;

let lists: CrlServer;
let service: TestService;
const providers = {} as Record<'listed' | 'withdrawn' | 'suspended' | 'unlisted' | 'expired', WalletProvider>;

const rootOf = (provider: WalletProvider): x509.X509Certificate => new x509.X509Certificate(Buffer.from(provider.anchor, 'base64'));

test.before(async () => {
  [providers.listed, providers.withdrawn, providers.suspended, providers.unlisted, providers.expired] = await Promise.all([
    createWalletProvider({ name: 'Listed Wallet Provider' }),
    createWalletProvider({ name: 'Withdrawn Wallet Provider' }),
    createWalletProvider({ name: 'Suspended Wallet Provider' }),
    createWalletProvider({ name: 'Unlisted Wallet Provider' }),
    // Listed, but the certificate that signs its attestations has expired.
    createWalletProvider({ name: 'Expired Wallet Provider', notAfter: new Date(Date.now() - 60_000) }),
  ]);
  const signer = await createListSigner('Test Wallet Providers LoTE Signer');
  const entity = (name: string, provider: WalletProvider, status: string) => ({
    name,
    services: [{ type: WALLET_SOLUTION_ISSUANCE, status, certificates: [rootOf(provider)], providerName: name, serviceName: `${name} wallet solution` }],
  });
  const list = await signLote(
    loteJson({
      sequenceNumber: 1,
      listType: WALLET_PROVIDERS_LIST,
      entities: [entity('Listed Wallet Provider', providers.listed, NOTIFIED), entity('Withdrawn Wallet Provider', providers.withdrawn, WITHDRAWN), entity('Suspended Wallet Provider', providers.suspended, SUSPENDED), entity('Expired Wallet Provider', providers.expired, NOTIFIED)],
    }),
    signer,
  );
  lists = await startCrlServer();
  lists.serve('/wallet-providers.jws', { status: 200, body: Buffer.from(list) });
  const sources = JSON.stringify([
    { id: 'eu-wallet-providers', format: 'lote', url: lists.url('/wallet-providers.jws'), signingCertificates: [signer.base64], statusMap: { [SUSPENDED]: 'suspended' } },
  ]);
  service = await withReachablePublicUrl((env) =>
    startTestService({ env: { ...env, X509_TRUST_RESOLUTION_MODE: 'lotl', X509_TRUST_LIST_SOURCES: sources, AUTHENTICATION_URL: LOGIN } }),
  );
});

test.after.always(async () => {
  await service?.cleanup();
  await lists?.close();
});

interface Wallet {
  readonly clientId: string;
  readonly instance: WalletKey;
  readonly dpop: WalletKey;
  readonly verifier: string;
}

const newWallet = async (): Promise<Wallet> => ({ clientId: `wallet-${randomBytes(4).toString('hex')}`, instance: await newWalletKey(), dpop: await newWalletKey(), verifier: randomBytes(32).toString('base64url') });

const attestationHeaders = async (w: Wallet, provider: WalletProvider, exp?: number) => ({
  'OAuth-Client-Attestation': await walletAttestation(provider, { clientId: w.clientId, instanceJwk: w.instance.publicJwk, ...(exp === undefined ? {} : { exp }) }),
  'OAuth-Client-Attestation-PoP': await attestationPop(w.instance, { clientId: w.clientId, audience: service.config.publicUrl }),
});

const form = async (path: string, fields: Record<string, string>, headers: Record<string, string>) => {
  const response = await service.wallet(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

const offerEvents = async (offerId: string) => {
  const read = await service.service.store.readStream(offerStream(offerId));
  return read._tag === 'Found' ? read.events : [];
};

/** An authorization-code offer and a pushed request for it, authenticated by `headers`. */
const push = async (w: Wallet, headers: Record<string, string>) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' });
  const offer = (await (await service.wallet(`/oidc4vci/offers/${created.offer_id}`)).json()) as { grants: { authorization_code: { issuer_state: string } } };
  const par = await form('/oidc4vci/par', {
    response_type: 'code', client_id: w.clientId, redirect_uri: REDIRECT_URI, code_challenge: createHash('sha256').update(w.verifier).digest('base64url'),
    code_challenge_method: 'S256', issuer_state: offer.grants.authorization_code.issuer_state, scope: 'pid', state: 'st',
  }, headers);
  return { offerId: created.offer_id, par };
};

test('a wallet of a provider the wallet providers list names goes through PAR and the token endpoint', async (t) => {
  const w = await newWallet();
  const { offerId, par } = await push(w, await attestationHeaders(w, providers.listed));
  t.is(par.status, 201, JSON.stringify(par.body));
  const visit = await service.wallet(`/oidc4vci/authorize?${new URLSearchParams({ client_id: w.clientId, request_uri: par.body['request_uri'] as string })}`, { redirect: 'manual' });
  const authorizationId = new URL(visit.headers.get('location')!).searchParams.get('authorization_id')!;
  const completed = await service.management(`/authorizations/${encodeURIComponent(authorizationId)}/complete`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const code = new URL(((await completed.json()) as { redirect_to: string }).redirect_to).searchParams.get('code')!;
  const tokenUrl = `${service.config.publicUrl}/oidc4vci/token`;
  const fields = { grant_type: 'authorization_code', code, code_verifier: w.verifier, redirect_uri: REDIRECT_URI, client_id: w.clientId };
  const attestation = await attestationHeaders(w, providers.listed);
  const first = await form('/oidc4vci/token', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl }) });
  t.like(first, { status: 400, body: { error: 'use_dpop_nonce' } });
  const token = await form('/oidc4vci/token', fields, { ...attestation, DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: tokenUrl, nonce: first.headers.get('dpop-nonce')! }) });
  t.is(token.status, 200, JSON.stringify(token.body));
  const pushed = (await offerEvents(offerId)).find((e) => e.type === 'AuthorizationRequestPushed');
  t.like(pushed?.data, { wallet: { clientId: w.clientId, walletProviderCertificate: providers.listed.certificate.subject, keyThumbprint: await thumbprint(w.instance.publicJwk) } });
});

test('a withdrawn, a suspended, an unlisted and an expired provider, and an expired attestation of a listed one, are invalid_client with the reason; nothing is appended', async (t) => {
  const refusals: [WalletProvider, number | undefined, RegExp][] = [
    [providers.withdrawn, undefined, /wallet provider is withdrawn: service "Withdrawn Wallet Provider wallet solution"/],
    [providers.suspended, undefined, /wallet provider is suspended/],
    [providers.unlisted, undefined, /not from a trusted wallet provider/],
    [providers.expired, undefined, /certificate chain is not valid: .*expired/],
    [providers.listed, Math.floor(Date.now() / 1000) - 60, /has expired/],
  ];
  for (const [provider, exp, reason] of refusals) {
    const w = await newWallet();
    const { offerId, par } = await push(w, await attestationHeaders(w, provider, exp));
    t.like(par, { status: 401, body: { error: 'invalid_client' } });
    t.regex(par.body['error_description'] as string, reason);
    t.deepEqual((await offerEvents(offerId)).map((e) => e.type), ['OfferCreated']);
  }
});

test('a pre-authorized redemption with an attestation (WALLET_ATTESTATION=optional) records the wallet; a withdrawn provider\'s is refused', async (t) => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  const offer = (await (await service.wallet(`/oidc4vci/offers/${created.offer_id}`)).json()) as { grants: Record<string, { 'pre-authorized_code': string }> };
  const code = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
  const w = await newWallet();
  const redeem = async (provider: WalletProvider) =>
    form('/oidc4vci/token', { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code, client_id: w.clientId }, {
      ...(await attestationHeaders(w, provider)),
      DPoP: await dpopProof(w.dpop, { htm: 'POST', htu: `${service.config.publicUrl}/oidc4vci/token` }),
    });
  const refused = await redeem(providers.withdrawn);
  t.like(refused, { status: 401, body: { error: 'invalid_client' } });
  t.regex(refused.body['error_description'] as string, /withdrawn/);
  t.is((await redeem(providers.listed)).status, 200);
  const redeemed = (await offerEvents(created.offer_id)).find((e) => e.type === 'PreAuthorizedCodeRedeemed');
  t.deepEqual((redeemed?.data as { wallet?: unknown }).wallet, {
    clientId: w.clientId,
    walletProvider: 'https://wallet-provider.example',
    walletProviderCertificate: providers.listed.certificate.subject,
    walletName: 'Connector test wallet',
    keyThumbprint: await thumbprint(w.instance.publicJwk),
  });
});

// The rules on a snapshot of one wallet providers list, its freshness chosen by the test.
const snapshotOf = (services: readonly TrustService[], usable: boolean): TrustSnapshot => {
  const entry: ListEntry = {
    sourceId: 'wallet-providers',
    format: 'lote',
    url: 'https://lists.example/wallet-providers.jws',
    parentUrl: undefined,
    list: { listType: WALLET_PROVIDERS_LIST, territory: 'EU', operator: 'Test', sequenceNumber: 1, issuedAt: new Date(Date.now() - DAY), nextUpdate: undefined, services, pointers: [] },
    digest: 'digest',
    statusMap: undefined,
  };
  return {
    index: new SnapshotIndex([entry]),
    missing: [],
    freshness: () => ({ usable, cachedFallback: !usable, pastNextUpdate: !usable, fetchedAt: new Date(Date.now() - (usable ? 0 : 30 * DAY)) }),
    lineage: (list) => [list],
  };
};

const listed = (provider: WalletProvider, status: string): TrustService => ({
  providerName: 'Provider', serviceName: 'Wallet solution', type: WALLET_SOLUTION_ISSUANCE, statuses: [{ status, from: new Date(Date.now() - DAY) }], certificates: [rootOf(provider)], country: undefined,
});

test('a stale wallet providers list cannot vouch: refused (fail closed) unless an anchor knows the provider; a withdrawal in a current list wins over an anchor', async (t) => {
  const chain = [providers.listed.certificate];
  const now = new Date();
  const fresh = { snapshot: () => snapshotOf([listed(providers.listed, NOTIFIED)], true) };
  const stale = { snapshot: () => snapshotOf([listed(providers.listed, NOTIFIED)], false) };
  t.true(isRight(await walletProviderTrust([], fresh).anchorOf(chain, now)));
  t.deepEqual(await walletProviderTrust([], stale).anchorOf(chain, now), {
    _tag: 'Left',
    left: 'The wallet provider cannot be checked: a trusted list of wallet providers is unavailable or past its staleness window.',
  });
  t.true(isRight(await walletProviderTrust([rootOf(providers.listed)], stale).anchorOf(chain, now)), 'a WALLET_PROVIDER_TRUST_ANCHORS certificate still counts');
  const withdrawn = { snapshot: () => snapshotOf([listed(providers.listed, WITHDRAWN)], true) };
  const refused = await walletProviderTrust([rootOf(providers.listed)], withdrawn).anchorOf(chain, now);
  t.like(refused, { _tag: 'Left' });
  t.regex(refused._tag === 'Left' ? refused.left : '', /withdrawn/);
});

test('a wallet provider\'s service vouches for no credential issuer', async (t) => {
  const snapshot = snapshotOf([listed(providers.listed, NOTIFIED)], true);
  t.is((await resolveIssuer(snapshot, [providers.listed.certificate], new Date(), { isPid: false })).outcome, 'not_found');
});
