// mdocs beside SD-JWT VCs, measured in the same run with the same issuer chain (root, intermediate,
// leaf), holder key and trust verifier: verifying one presented mDL (DeviceResponse: issuer
// signature, MSO, digests, device signature over the SessionTranscript, chain rules) beside
// verifying one presented SD-JWT VC (issuer JWT, disclosures, KB-JWT, chain rules), each through
// its format module; and signing one mDL (IssuerSigned) beside signing one SD-JWT VC with the
// same claims. Ratios above 1 mean the mdoc is the cheaper one.
import { keySigner } from '../src/crypto/signer.js';
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import { silentLogger } from '../src/log.js';
import { parseCredentialConfigurations, DEFAULT_CONFIGURATIONS, type MsoMdocConfiguration, type SdJwtVcConfiguration } from '../src/issuance/configurations.js';
import { signMsoMdoc } from '../src/issuance/formats/msoMdoc/signer.js';
import { signSdJwtVc } from '../src/issuance/formats/sdJwtVc/signer.js';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { MsoMdocQuery, SdJwtVcQuery } from '../src/verification/dcql.js';
import { createPresentationVerifier } from '../src/verification/formats/registry.js';
import type { FormatContext } from '../src/verification/presentedCredentialVerifier.js';
import { createCredentialStatusChecker } from '../src/verification/status/statusCheck.js';
import { createStatusListClient } from '../src/verification/status/statusListClient.js';
import { createTestIssuer } from '../test/support/credentials.js';
import { newWalletKey } from '../wallet/keys.js';
import { presentMdoc, readIssuerSigned } from '../wallet/mdoc.js';
import { holdCredential, present } from '../wallet/sdJwt.js';
import { alternatingSamples, type PresentationVerificationBenchOptions } from './presentationVerification.js';
import type { Figure } from './report.js';
import { loopbackEgress } from '../test/support/egress.js';

const NS = 'org.iso.18013.5.1';
const MDL_CLAIMS = {
  [NS]: {
    family_name: 'Mustermann',
    given_name: 'Erika',
    birth_date: '1964-08-12',
    issue_date: '2024-01-02',
    expiry_date: '2034-01-01',
    issuing_country: 'DE',
    issuing_authority: 'Kraftfahrt-Bundesamt',
    document_number: 'B072RRE2I55',
    portrait: Buffer.alloc(2048, 7).toString('base64url'),
    driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2024-01-02', expiry_date: '2034-01-01' }],
    un_distinguishing_sign: 'D',
  },
};
const PID_CLAIMS = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12', nationalities: ['DE'], issuing_authority: 'DE', issuing_country: 'DE' };

const decoded = <A>(result: Either<unknown, A>): A => {
  if (isLeft(result)) throw new Error('bench query does not decode');
  return result.right;
};

export const mdocFigures = async (options: PresentationVerificationBenchOptions): Promise<Figure[]> => {
  const issuer = await createTestIssuer({ intermediate: true });
  const signingKey = { signer: keySigner(issuer.leaf.keys.privateKey), x5c: issuer.x5c };
  const holder = await newWalletKey();
  const configurations = parseCredentialConfigurations(DEFAULT_CONFIGURATIONS, 'built-in');
  const mdl = configurations.find((c): c is MsoMdocConfiguration => c.id === 'mdl' && c.format === 'mso_mdoc');
  const pid = configurations.find((c): c is SdJwtVcConfiguration => c.id === 'pid' && c.format !== 'mso_mdoc');
  if (!mdl || !pid) throw new Error('the built-in mdl and pid configurations are missing');
  const now = new Date();
  const toSign = { issuer: 'https://issuer.example', holderJwk: holder.publicJwk, now, validitySeconds: 86_400 };
  const signMdl = () => signMsoMdoc(signingKey, { ...toSign, configuration: mdl, claims: MDL_CLAIMS });
  const signPid = () => signSdJwtVc(signingKey, { ...toSign, configuration: pid, claims: PID_CLAIMS });
  const signing = await alternatingSamples(
    options,
    'mdoc issuance signing',
    async () => void (await signMdl()),
    async () => void (await signPid()),
  );

  const encryptionKey = await newWalletKey();
  const handover = {
    clientId: 'x509_hash:bench',
    nonce: 'bench-nonce',
    responseUri: 'https://verifier.example/oidc4vp/bench/response',
    jwkThumbprint: await jwkThumbprintBytes(encryptionKey.publicJwk),
  };
  const context: FormatContext = {
    audience: handover.clientId,
    nonce: handover.nonce,
    handover,
    now: new Date(now.getTime() + 1000),
    transactionData: [],
    credentialId: 'bench',
  };
  const trust = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ egress: loopbackEgress, timeoutMs: 1000 }) });
  const status = createCredentialStatusChecker({ policy: 'enforce', client: createStatusListClient({ fetch: { egress: loopbackEgress, timeoutMs: 1000, maxBytes: 1 << 20 }, trust, cacheMaxSeconds: 60, cacheMaxBytes: 1 << 20 }) });
  const verify = createPresentationVerifier(trust, status, silentLogger);

  const mdocQuery = decoded(MsoMdocQuery.decode({ id: 'bench', format: 'mso_mdoc', meta: { doctype_value: mdl.doctype }, claims: [{ path: [NS, 'family_name'] }, { path: [NS, 'birth_date'] }, { path: [NS, 'driving_privileges'] }] }));
  const deviceResponse = presentMdoc(readIssuerSigned(await signMdl()), {
    docType: mdl.doctype,
    disclose: [[NS, 'family_name'], [NS, 'birth_date'], [NS, 'driving_privileges']],
    deviceKey: holder.privateKey,
    handover,
  });
  const sdJwtQuery = decoded(SdJwtVcQuery.decode({ id: 'bench', format: 'dc+sd-jwt', meta: { vct_values: [pid.vct] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }, { path: ['birthdate'] }] }));
  const sdJwt = await present(holdCredential(await signPid()), {
    disclose: ['given_name', 'family_name', 'birthdate'],
    keyBinding: { holder: { keys: { privateKey: holder.privateKey } }, aud: context.audience, nonce: context.nonce },
  });
  const verifying = (presentation: string, query: MsoMdocQuery | SdJwtVcQuery) => async () => {
    const result = await verify(presentation, query, query.claims, context);
    if (isLeft(result)) throw new Error(`bench presentation refused: ${result.left.reason}`);
  };
  const verifications = await alternatingSamples(options, 'mdoc presentation verification', verifying(deviceResponse, mdocQuery), verifying(sdJwt, sdJwtQuery));
  return [
    {
      name: 'mdoc presentation verification (mDL, 3 elements) vs SD-JWT VC (PID, 3 claims)',
      unit: 'presentations/s',
      ours: verifications.ours,
      reference: verifications.reference,
      target: { atLeast: 0.5 },
      note: 'each through its format module (formats/registry.ts), same chain, holder key and trust verifier, no status reference; reference = the SD-JWT VC',
    },
    {
      name: 'mdoc issuance signing (mDL, 11 elements, 2 KiB portrait) vs SD-JWT VC (PID)',
      unit: 'credentials/s',
      ours: signing.ours,
      reference: signing.reference,
      target: { atLeast: 0.5 },
      note: 'signMsoMdoc (IssuerSigned, COSE ES256, x5chain) beside signSdJwtVc (ES256 JWS, x5c) with the same issuer key and holder key; reference = the SD-JWT VC',
    },
  ];
};
