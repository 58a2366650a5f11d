import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isLeft } from 'fp-ts/lib/Either.js';
import { compactDecrypt, compactVerify, type JWK } from 'jose';
import { createCertificateAuthority, createLeafCertificate, signingIdentity, x509HashClientId } from '../src/crypto/certificates.js';
import { trustVerifierFromConfig } from '../src/trust/issuerTrust.js';
import { signRequestObject, type Verifier } from '../src/verification/requestObject.js';
import { verifySdJwtVcPresentation } from '../src/verification/sdJwtVc.js';
import { createHolder, createTestIssuer, present, sd, type Holder, type IssuedCredential } from '../test/support/credentials.js';
import { startTestService, type TestService } from '../test/support/service.js';
import { answer, encryptResponse, fetchAuthorizationRequest, type AuthorizationRequest } from '../test/support/wallet/presentation.js';

const VCT = 'urn:eudi:pid:1';
const dcqlQuery = { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] };
interface Wallet { readonly holder: Holder; readonly credential: IssuedCredential; }
/** The same cryptography as one flow, without HTTP, JSON bodies or the event store. */
const cryptoOnly = async (verifier: Verifier, wallet: Wallet, trust: ReturnType<typeof trustVerifierFromConfig>): Promise<void> => {
  const now = new Date();
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const nonce = 'n'.repeat(43);
  const state = 's'.repeat(43);
  const jwt = await signRequestObject(verifier, {
    state,
    nonce,
    walletNonce: undefined,
    kid: 'kid',
    publicJwk,
    dcqlQuery,
    transactionData: [],
    expiresAt: new Date(now.getTime() + 300_000),
    now,
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
  const { plaintext } = await compactDecrypt(jwe, privateKey, { keyManagementAlgorithms: ['ECDH-ES'], contentEncryptionAlgorithms: ['A128GCM', 'A256GCM'] });
  const [presentation] = (JSON.parse(new TextDecoder().decode(plaintext)) as { vp_token: { pid: string[] } }).vp_token.pid;
  const verified = await verifySdJwtVcPresentation(
    presentation!,
    { vctValues: [VCT], claimPaths: [['given_name'], ['family_name']], requireHolderBinding: true },
    { clientId: verifier.clientId, nonce, now, transactionData: [], credentialId: 'pid' },
    trust,
  );
  if (isLeft(verified)) throw new Error(`bench: reference verification failed: ${verified.left.reason}`);
};


const service = await startTestService({});
const issuer = await createTestIssuer();
const holder = await createHolder();
const wallet: Wallet = { holder, credential: await issuer.issue({ vct: VCT, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') }, holder }) };
const ca = await createCertificateAuthority({ commonName: 'bench CA' });
const leaf = await createLeafCertificate(ca, { commonName: 'bench access' });
const identity = await signingIdentity([leaf.certificate], leaf.keys.privateKey);
const verifier: Verifier = { identity, clientId: x509HashClientId(leaf.certificate), publicUrl: service.config.publicUrl };
const trust = trustVerifierFromConfig(service.config);
const run = async (count: number) => { const started = performance.now(); let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => { while (next < count) { next++; await cryptoOnly(verifier, wallet, trust); } }));
  return count / ((performance.now() - started) / 1000); };
await run(200);
const elu0 = performance.eventLoopUtilization(); const cpu0 = process.cpuUsage();
const N = 1500; const rate = await run(N);
const elu = performance.eventLoopUtilization(elu0); const cpu = process.cpuUsage(cpu0);
console.log('ref/s', rate.toFixed(0), 'main ms/flow', (elu.active / N).toFixed(2), 'cpu ms/flow', ((cpu.user + cpu.system) / 1000 / N).toFixed(2), 'elu', elu.utilization.toFixed(2));
await service.cleanup();
