// Full OpenID4VCI issuance flows per second beside the cryptography those flows cannot avoid,
// measured in the same run. A flow is what an integrator and a wallet do over real HTTP against
// the whole service on the embedded store (synchronous=FULL): POST /offers, resolve the offer, a
// DPoP token request, a c_nonce, a credential request with a DPoP proof and a key proof. The
// reference does the same signatures and verifications (three wallet ES256 signatures, three
// proof verifications with embedded keys, the SD-JWT VC signature with its disclosures, sealing
// and opening the claims) with nothing else. Both run the same number of flows in flight.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose';
import { generateP256KeyPair } from '../src/crypto/certificates.js';
import { signingIdentity, generateChain } from '../src/crypto/signingIdentity.js';
import { open, seal } from '../src/crypto/seal.js';
import { DEFAULT_CONFIGURATIONS, parseCredentialConfigurations } from '../src/issuance/configurations.js';
import { signSdJwtVc } from '../src/issuance/formats/sdJwtVc/signer.js';
import { BOOTSTRAP_KEY, startTestService, testConfig } from '../test/support/service.js';
import { IssuanceWallet } from '../test/support/wallet/issuance.js';
import { PID_CLAIMS } from '../test/support/wallet/issuanceChecks.js';
import { IssuanceWallet as Wallet } from '../wallet/issuance.js';
import type { IssuerEndpoints } from '../wallet/issuerMetadata.js';
import { dpopProof, newWalletKey } from '../wallet/keys.js';
import type { Figure } from './report.js';
import { flowCeiling } from './exchange.js';
import { metered, serviceCpuFigures, type CpuBenchOptions, type FlowTarget } from './cpu.js';
import { alternatingRounds, runInFlight } from './load.js';

/** HTTP exchanges in one flow: POST /offers, the offer, the token, the nonce, the credential. */
const EXCHANGES = 5;

/** Flows in flight on each side (BENCH_ISSUANCE_IN_FLIGHT, default 8): wallets do not wait for each other. */
const IN_FLIGHT = Math.max(1, Number(process.env['BENCH_ISSUANCE_IN_FLIGHT']) || 8);

/** One flow: an integrator creates an offer, a fresh wallet receives the credential. */
export const flow = async (target: FlowTarget): Promise<void> => {
  const created = await target.management('/offers', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'numeric', length: 6 } }),
  });
  if (created.status !== 201) throw new Error(`bench: POST /offers answered ${created.status}`);
  const offer = (await created.json()) as { credential_offer_uri: string; tx_code_value?: string };
  const wallet = await IssuanceWallet.create(target.publicUrl, target.listenUrl);
  await wallet.receive(offer.credential_offer_uri, offer.tx_code_value);
};

/** The endpoints the deployment's issuer metadata names (no service runs here to ask it). */
const deploymentEndpoints = (publicUrl: string): IssuerEndpoints => ({
  credentialIssuer: publicUrl,
  metadataUrl: `${publicUrl}/.well-known/openid-credential-issuer`,
  credentialEndpoint: `${publicUrl}/oidc4vci/credential`,
  nonceEndpoint: `${publicUrl}/oidc4vci/nonce`,
  authorizationServer: publicUrl,
  tokenEndpoint: `${publicUrl}/oidc4vci/token`,
});

/**
 * The same cryptography as one flow, nothing else; with `service`, the CPU time of the service's
 * share (sealing and opening the claims, verifying the three proofs, the thumbprints and signing
 * the credential) is added to `service.ms`.
 */
export const cryptoOnly = async (publicUrl: string) => {
  const pid = parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in').find((c) => c.id === 'pid');
  if (pid?.format === 'mso_mdoc') throw new Error('the built-in pid is an SD-JWT VC');
  const chain = await generateChain('bench issuer');
  const issuer = await signingIdentity([chain.leaf.certificate], chain.leaf.keys.privateKey);
  const dataKey = randomBytes(32);
  const wallet = new Wallet(deploymentEndpoints(publicUrl), globalThis.fetch, { dpop: await newWalletKey(), holder: await newWalletKey() });
  return async (service: { ms: number } = { ms: 0 }): Promise<void> => {
    // The flow's wallet makes two fresh keys: so does this.
    await Promise.all([generateP256KeyPair(), generateP256KeyPair()]);
    const sealed = await metered(service, async () => seal(dataKey, Buffer.from(JSON.stringify(PID_CLAIMS)), 'claims'));
    const tokenProof = await dpopProof(wallet.dpopKey, { htm: 'POST', htu: wallet.tokenUrl });
    await metered(service, async () => {
      const token = await jwtVerify(tokenProof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
      await calculateJwkThumbprint(token.protectedHeader.jwk!);
    });
    const keyProof = await wallet.keyProof({ nonce: 'n' });
    const credentialProof = await dpopProof(wallet.dpopKey, { htm: 'POST', htu: wallet.credentialUrl, accessToken: 'a' });
    await metered(service, async () => {
      await calculateJwkThumbprint((await jwtVerify(credentialProof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] })).protectedHeader.jwk!);
      const holder = await jwtVerify(keyProof, EmbeddedJWK, { typ: 'openid4vci-proof+jwt', algorithms: ['ES256'] });
      await signSdJwtVc(issuer, {
        issuer: publicUrl,
        configuration: pid!,
        claims: JSON.parse(open(dataKey, sealed, 'claims').toString('utf8')) as typeof PID_CLAIMS,
        holderJwk: holder.protectedHeader.jwk!,
        now: new Date(),
        validitySeconds: 86_400,
      });
    });
  };
};

export interface IssuanceBenchOptions {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (msg: string) => void;
}

export const issuanceFigures = async (options: IssuanceBenchOptions): Promise<Figure[]> => {
  const service = await startTestService({ dataDir: join(options.dir, 'issuance') });
  try {
    const target: FlowTarget = { management: service.management, publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl };
    const ours = () => flow(target);
    const reference = await cryptoOnly(service.config.publicUrl);

    // Warm-up and calibration: rounds of about roundSeconds for the slower side.
    const rate = (count: number, flow: () => Promise<void>) => runInFlight(count, IN_FLIGHT, flow);
    const { perSecond: warm } = await rate(20, ours);
    await rate(50, () => reference());
    const perRound = Math.max(20, Math.min(2000, Math.round(warm * options.roundSeconds)));
    options.progress(`issuance: ${options.rounds} rounds of ${perRound} flows a side, ${IN_FLIGHT} in flight (calibrated at ~${Math.round(warm)} flows/s)`);
    const sides = await alternatingRounds(options.rounds, perRound, IN_FLIGHT, ours, () => reference());
    const ceiling = await flowCeiling('issuance', IN_FLIGHT, EXCHANGES, sides, options.progress);
    return [
      {
        name: 'full issuance flows',
        unit: 'flows/s',
        ours: sides.ours,
        reference: sides.reference,
        target: { atLeast: 0.6 },
        note:
          `ours: POST /offers (pid, tx_code) + offer + DPoP token + c_nonce + credential over loopback HTTP, embedded store synchronous=FULL, ` +
          `${IN_FLIGHT} flows in flight; reference: the same flow's cryptography only (2 key pairs, 3 ES256 proof signatures, 3 embedded-key ` +
          `verifications, 2 thumbprints, the SD-JWT VC signature with 7 disclosures, AES-GCM seal and open), ${IN_FLIGHT} in flight. ` +
          ceiling,
      },
    ];
  } finally {
    await service.cleanup();
  }
};

/** Service CPU per issuance flow against its floor, and over a long run (bench/cpu.ts). */
export const issuanceCpuFigures = async (options: IssuanceBenchOptions & CpuBenchOptions): Promise<Figure[]> =>
  serviceCpuFigures({
    label: 'issuance',
    dir: options.dir,
    rounds: options.rounds,
    inFlight: IN_FLIGHT,
    count: options.cpuFlows,
    longFlows: options.longFlows,
    exchanges: EXCHANGES,
    flow,
    crypto: await cryptoOnly(testConfig(join(options.dir, 'issuance-reference')).publicUrl),
    bootstrapKey: BOOTSTRAP_KEY,
    progress: options.progress,
  });

/** An issuance flow against any target (bench/soak.ts). */
export const issuanceFlow = flow;
