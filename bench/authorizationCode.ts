// Full authorization code issuance flows per second (HAIP) beside the cryptography those flows
// cannot avoid, in the same run as the pre-authorized group. A flow: POST /offers with the
// authorization_code grant, the offer, the pushed authorization request with a wallet attestation,
// the authorization endpoint's redirect, the integrator completing it, the token request (first
// refused with use_dpop_nonce, as for a wallet meeting the issuer for the first time, then with the
// nonce), a c_nonce and the credential: 9 HTTP exchanges over loopback against the whole service.
// The reference: the pre-authorized flow's cryptography plus the wallet attestation's (two PoP
// signatures, the attestation and PoP verified twice, the provider certificate checked against its anchor).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { importJWK, jwtVerify } from 'jose';
import { trustAnchorCertificates } from '../src/trust/trustAnchors.js';
import { findTrustAnchor, verificationKeyOf } from '../src/trust/x509Chain.js';
import { startTestService } from '../test/support/service.js';
import { walletFetch } from '../test/support/wallet/transport.js';
import { PID_CLAIMS } from '../test/support/wallet/issuanceChecks.js';
import { AuthorizationCodeWallet, type AttestedClient } from '../wallet/authorizationCode.js';
import { discoverIssuer } from '../wallet/issuerMetadata.js';
import { newWalletKey } from '../wallet/keys.js';
import { attestationPop, createWalletProvider, walletAttestation, type WalletProvider } from '../wallet/walletProvider.js';
import type { Figure } from './report.js';
import { flowCeiling } from './exchange.js';
import type { FlowTarget } from './cpu.js';
import { alternatingRounds, runInFlight } from './load.js';
import type { IssuanceBenchOptions } from './issuance.js';
import { cryptoOnly } from './issuance.js';

const EXCHANGES = 9;
const IN_FLIGHT = Math.max(1, Number(process.env['BENCH_ISSUANCE_IN_FLIGHT']) || 8);
const REDIRECT_URI = 'https://wallet.example/callback';

const newClient = async (provider: WalletProvider): Promise<AttestedClient> => {
  const instanceKey = await newWalletKey();
  const clientId = `bench-${randomBytes(6).toString('hex')}`;
  return { clientId, instanceKey, attestation: await walletAttestation(provider, { clientId, instanceJwk: instanceKey.publicJwk }) };
};

/** One flow: the integrator offers, a fresh wallet instance pushes, the integrator completes, the wallet receives. */
const flow = async (target: FlowTarget, provider: WalletProvider): Promise<void> => {
  const created = await target.management('/offers', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS, grant: 'authorization_code' }),
  });
  if (created.status !== 201) throw new Error(`bench: POST /offers answered ${created.status}`);
  const { credential_offer_uri: offerUri } = (await created.json()) as { credential_offer_uri: string };
  const fetch = walletFetch({ publicUrl: target.publicUrl, listenUrl: target.listenUrl });
  const wallet = new AuthorizationCodeWallet(await discoverIssuer(fetch, target.publicUrl), fetch, { dpop: await newWalletKey(), holder: await newWalletKey() });
  const client = await newClient(provider);
  const offer = await wallet.resolveOffer(offerUri);
  const pending = await wallet.start(offer.body, client, REDIRECT_URI);
  const visit = await fetch(pending.authorizationUrl, { redirect: 'manual' });
  const authorizationId = new URL(visit.headers.get('location') ?? '').searchParams.get('authorization_id') ?? '';
  const completed = await target.management(`/authorizations/${encodeURIComponent(authorizationId)}/complete`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  if (completed.status !== 200) throw new Error(`bench: completing the authorization answered ${completed.status}`);
  const { redirect_to: redirectTo } = (await completed.json()) as { redirect_to: string };
  await wallet.finish(pending, client, wallet.codeFrom(pending, redirectTo));
};

/** The pre-authorized flow's cryptography, and the wallet attestation's on both sides, twice (PAR and token). */
const attestationCryptoOnly = async (provider: WalletProvider, publicUrl: string) => {
  const preAuthorized = await cryptoOnly(publicUrl);
  const client = await newClient(provider);
  const providerKey = await verificationKeyOf(provider.certificate);
  const anchors = trustAnchorCertificates([provider.anchor]);
  return async (): Promise<void> => {
    await preAuthorized();
    for (let i = 0; i < 2; i++) {
      const pop = await attestationPop(client.instanceKey, { clientId: client.clientId, audience: publicUrl });
      const attested = await jwtVerify(client.attestation, providerKey, { algorithms: ['ES256'] });
      await jwtVerify(pop, await importJWK((attested.payload['cnf'] as { jwk: never }).jwk, 'ES256'), { algorithms: ['ES256'] });
      await findTrustAnchor([provider.certificate], anchors, new Date());
    }
  };
};

export const authorizationCodeFigures = async (options: IssuanceBenchOptions): Promise<Figure[]> => {
  const provider = await createWalletProvider();
  const service = await startTestService({
    dataDir: join(options.dir, 'issuance-authorization-code'),
    env: { WALLET_PROVIDER_TRUST_ANCHORS: provider.anchor, AUTHENTICATION_URL: 'https://login.example/authenticate' },
  });
  try {
    const target: FlowTarget = { management: service.management, publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl };
    const ours = () => flow(target, provider);
    const reference = await attestationCryptoOnly(provider, service.config.publicUrl);
    const { perSecond: warm } = await runInFlight(20, IN_FLIGHT, ours);
    await runInFlight(50, IN_FLIGHT, reference);
    const perRound = Math.max(20, Math.min(2000, Math.round(warm * options.roundSeconds)));
    options.progress(`issuance (authorization code): ${options.rounds} rounds of ${perRound} flows a side, ${IN_FLIGHT} in flight (calibrated at ~${Math.round(warm)} flows/s)`);
    const sides = await alternatingRounds(options.rounds, perRound, IN_FLIGHT, ours, reference);
    const ceiling = await flowCeiling('issuance (authorization code)', IN_FLIGHT, EXCHANGES, sides, options.progress);
    return [
      {
        name: 'full authorization code issuance flows',
        unit: 'flows/s',
        ours: sides.ours,
        reference: sides.reference,
        target: { atLeast: 0.6 },
        note:
          `ours: POST /offers (pid, authorization_code) + offer + PAR with wallet attestation + authorize + the integrator's completion + ` +
          `DPoP token (use_dpop_nonce, then with the nonce) + c_nonce + credential over loopback HTTP, embedded store synchronous=FULL, ` +
          `${IN_FLIGHT} flows in flight; reference: the pre-authorized flow's cryptography plus the wallet attestation's (2 PoP signatures, ` +
          `the attestation and its PoP verified twice, the provider certificate against its anchor), ${IN_FLIGHT} in flight. ` +
          ceiling,
      },
    ];
  } finally {
    await service.cleanup();
  }
};
