// Verification flows per second through the whole service on the embedded store, beside a loop
// doing only the same cryptography in the same process; and the p99 latency of POST /oidc4vp
// beside the p99 of the cheapest authenticated route measured alongside it.
//
// One flow: POST /oidc4vp; the wallet fetches the request object and checks its signature and
// client_id; it presents a credential with a KB-JWT, encrypts the response and posts it; the
// service decrypts, verifies and appends the terminal event before it answers. The wallet's
// cryptography is in both loops: a flow cannot happen without it, and the reference repeats it.
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isLeft } from 'fp-ts/lib/Either.js';
import { compactDecrypt, compactVerify, type JWK } from 'jose';
import { createCertificateAuthority, createLeafCertificate, x509HashClientId } from '../src/crypto/certificates.js';
import { signingIdentity } from '../src/crypto/signingIdentity.js';
import { credentialStatusCheckerFromConfig, type CredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { trustVerifierFromConfig, type TrustVerifier } from '../src/trust/issuerTrust.js';
import type { Verifier } from '../src/verification/authorizationRequest.js';
import { signRequestObject } from '../src/verification/requestObject/requestObject.js';
import { verifySdJwtVcPresentation } from '../src/verification/formats/sdJwtVc/sdJwtVc.js';
import { createHolder, createTestIssuer, sd, type Holder, type IssuedCredential } from '../test/support/credentials.js';
import { present } from '../wallet/sdJwt.js';
import type { Config } from '../src/config/config.js';
import { BOOTSTRAP_KEY, startTestService, testConfig } from '../test/support/service.js';
import { answer, fetchAuthorizationRequest } from '../test/support/wallet/presentation.js';
import { encryptResponse, type AuthorizationRequest } from '../wallet/presentation.js';
import type { Figure } from './report.js';
import { flowCeiling } from './exchange.js';
import { metered, serviceCpuFigures, type CpuBenchOptions, type FlowTarget } from './cpu.js';
import { alternatingRounds, runInFlight } from './load.js';
import { percentile } from './stats.js';

const VCT = 'urn:eudi:pid:1';
const dcqlQuery = {
  credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }],
};

/** HTTP exchanges in one flow: POST /oidc4vp, the request object, the response. */
const EXCHANGES = 3;

/** Flows in flight at once on each side, as wallets arrive independently of each other. */
const CONCURRENCY = Number(process.env['BENCH_VERIFICATION_CONCURRENCY'] ?? 8);

interface Wallet {
  readonly holder: Holder;
  readonly credential: IssuedCredential;
}

/** One flow through the service; returns the POST /oidc4vp latency in ms. */
export const flow = async (service: FlowTarget, wallet: Wallet): Promise<number> => {
  const started = performance.now();
  const created = await service.management('/oidc4vp', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ dcql_query: dcqlQuery }),
  });
  const createMs = performance.now() - started;
  if (created.status !== 201) throw new Error(`bench: POST /oidc4vp answered ${created.status}`);
  const { cross_device_request_uri: uri } = (await created.json()) as { cross_device_request_uri: string };
  const endpoints = { publicUrl: service.publicUrl, listenUrl: service.listenUrl };
  const request = await fetchAuthorizationRequest(endpoints, uri);
  const posted = await answer(endpoints, request, { pid: { credential: wallet.credential, holder: wallet.holder } });
  if (posted.status !== 200) throw new Error(`bench: the wallet's response answered ${posted.status}: ${JSON.stringify(posted.body)}`);
  return createMs;
};

/**
 * The same cryptography as one flow, without HTTP, JSON bodies or the event store. With `service`,
 * the CPU time of the service's share (the request's key pair, signing the request object,
 * decryption and verification of the response) is added to `service.ms`.
 */
const cryptoOnly = async (
  verifier: Verifier,
  wallet: Wallet,
  checks: { trust: TrustVerifier; status: CredentialStatusChecker },
  service: { ms: number } = { ms: 0 },
): Promise<void> => {
  const now = new Date();
  const nonce = 'n'.repeat(43);
  const state = 's'.repeat(43);
  const { publicJwk, privateKey, jwt } = await metered(service, async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    return { publicJwk, privateKey, jwt: await signRequestObject(verifier, {
    state,
    nonce,
    walletNonce: undefined,
    kid: 'kid',
    publicJwk,
    dcqlQuery,
    transactionData: [],
    expiresAt: new Date(now.getTime() + 300_000),
    now,
  }) };
  });
  // The wallet's checks of the request object.
  const leaf = new X509Certificate(Buffer.from(verifier.identity.x5c[0]!, 'base64'));
  await compactVerify(jwt, leaf.publicKey, { algorithms: ['ES256'] });
  const vp = await present(wallet.credential, {
    disclose: ['given_name', 'family_name'],
    keyBinding: { holder: wallet.holder, aud: verifier.clientId, nonce },
  });
  const request = { encryptionKey: { ...publicJwk, kid: 'kid', alg: 'ECDH-ES' } } as unknown as AuthorizationRequest;
  const jwe = await encryptResponse(request, { vp_token: { pid: [vp] }, state });
  const verified = await metered(service, async () => {
    const { plaintext } = await compactDecrypt(jwe, privateKey, { keyManagementAlgorithms: ['ECDH-ES'], contentEncryptionAlgorithms: ['A128GCM', 'A256GCM'] });
    const [presentation] = (JSON.parse(new TextDecoder().decode(plaintext)) as { vp_token: { pid: string[] } }).vp_token.pid;
    return verifySdJwtVcPresentation(
      presentation!,
      { vctValues: [VCT], claimPaths: [['given_name'], ['family_name']], requireHolderBinding: true },
      { audience: verifier.clientId, nonce, now, transactionData: [], credentialId: 'pid' },
      checks.trust,
      checks.status,
    );
  });
  if (isLeft(verified)) throw new Error(`bench: reference verification failed: ${verified.left.reason}`);
};

export interface VerificationBenchOptions {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (message: string) => void;
}

/** The wallet with its credential, and the reference's verifier with the service's checks. */
export const parties = async (config: Config) => {
  const issuer = await createTestIssuer();
  const holder = await createHolder();
  const wallet: Wallet = {
    holder,
    credential: await issuer.issue({ vct: VCT, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') }, holder }),
  };
  // The reference signs with an access certificate of the same kind as the service's.
  const ca = await createCertificateAuthority({ commonName: 'bench CA' });
  const leaf = await createLeafCertificate(ca, { commonName: 'bench access' });
  const identity = await signingIdentity([leaf.certificate], leaf.keys.privateKey);
  const verifier: Verifier = { identity, clientId: x509HashClientId(leaf.certificate), publicUrl: config.publicUrl };
  const trust = trustVerifierFromConfig(config);
  return { wallet, verifier, checks: { trust, status: credentialStatusCheckerFromConfig(config, trust) } };
};

export const verificationFigures = async (options: VerificationBenchOptions): Promise<Figure[]> => {
  const service = await startTestService({ dataDir: `${options.dir}/verification` });
  try {
    const { wallet, verifier, checks } = await parties(service.config);
    const target: FlowTarget = { management: service.management, publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl };

    // Warm-up and calibration: rounds of about `roundSeconds` of flows.
    const time = (count: number, work: () => Promise<unknown>) => runInFlight(count, CONCURRENCY, work);
    const { perSecond: warm } = await time(40, () => flow(target, wallet));
    await time(40, () => cryptoOnly(verifier, wallet, checks));
    const count = Math.max(40, Math.round(warm * options.roundSeconds));
    options.progress(`verification: ${options.rounds} rounds of ${count} flows a side, ${CONCURRENCY} in flight (calibrated at ~${Math.round(warm)} flows/s)`);

    const sides = await alternatingRounds(options.rounds, count, CONCURRENCY, () => flow(target, wallet), () => cryptoOnly(verifier, wallet, checks));
    // Latency under the same load, each create beside the cheapest authenticated route.
    const createMs: number[] = [];
    const tenantMs: number[] = [];
    await time(count, async () => {
      const started = performance.now();
      await (await target.management('/tenant')).arrayBuffer();
      tenantMs.push(performance.now() - started);
      createMs.push(await flow(target, wallet));
    });
    const ceiling = await flowCeiling('verification', CONCURRENCY, EXCHANGES, sides, options.progress);
    return [
      {
        name: 'verification flows/s, embedded store',
        unit: 'flows/s',
        ours: sides.ours,
        reference: sides.reference,
        target: { atLeast: 0.6 },
        note:
          `${CONCURRENCY} flows in flight on each side (BENCH_VERIFICATION_CONCURRENCY). ` +
          'ours: POST /oidc4vp, GET request object (wallet verifies it), wallet presents with KB-JWT, encrypts, POSTs; ' +
          'the service decrypts, verifies and appends the terminal event before answering; ' +
          'reference: the same ECDH key generation, request-object signing and verification, KB-JWT signing, ECDH-ES encryption and decryption ' +
          'and SD-JWT VC verification, no HTTP or store; rounds alternate which side goes first. ' +
          ceiling,
      },
      {
        name: 'POST /oidc4vp p99 latency',
        unit: 'ms',
        ours: percentile(createMs, 99),
        reference: percentile(tenantMs, 99),
        // The issue sets no latency target; ours: no worse than 3 cheapest authenticated requests.
        target: { atMost: 3 },
        note:
          `ours: p99 of ${createMs.length} POST /oidc4vp during ${CONCURRENCY} concurrent flows (validation, a data key and the session: two durable appends); ` +
          'reference: p99 of GET /tenant (authentication and one read-model query) sent just before each, under the same load.',
      },
    ];
  } finally {
    await service.cleanup();
  }
};

/** Service CPU per verification flow against its floor, and over a long run (bench/cpu.ts). */
export const verificationCpuFigures = async (options: VerificationBenchOptions & CpuBenchOptions): Promise<Figure[]> => {
  const { wallet, verifier, checks } = await parties(testConfig(`${options.dir}/verification-reference`));
  return serviceCpuFigures({
    label: 'verification',
    dir: options.dir,
    rounds: options.rounds,
    inFlight: CONCURRENCY,
    count: options.cpuFlows,
    longFlows: options.longFlows,
    exchanges: EXCHANGES,
    flow: (target) => flow(target, wallet),
    crypto: (service) => cryptoOnly(verifier, wallet, checks, service),
    bootstrapKey: BOOTSTRAP_KEY,
    progress: options.progress,
  });
};

/** A verification flow against any target, with a wallet of its own (bench/soak.ts). */
export const verificationFlow = async (dir: string): Promise<(target: FlowTarget) => Promise<unknown>> => {
  const { wallet } = await parties(testConfig(`${dir}/verification-wallet`));
  return (target) => flow(target, wallet);
};
