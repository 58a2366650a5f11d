// Verification of one SD-JWT VC presentation (with key binding, a two-certificate chain, nested
// disclosures, no CRL) beside the cryptography it cannot avoid, measured in the same run:
// importing the two public keys (the leaf's SPKI, the holder's JWK), two ES256 JWS verifications
// (issuer JWT, KB-JWT) and the leaf certificate's signature. The ratio shows what parsing,
// disclosure hashing, chain rules and claim checks add on top.
import { webcrypto } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isLeft } from 'fp-ts/lib/Either.js';
import { compactVerify, importJWK } from 'jose';
import { createCrlChecker } from '../src/trust/crl.js';
import { createTrustVerifier } from '../src/trust/issuerTrust.js';
import { verifySdJwtVcPresentation, type CredentialRequirements, type PresentationContext } from '../src/verification/sdJwtVc.js';
import { createHolder, createTestIssuer, present, sd } from '../test/support/credentials.js';
import type { Figure } from './report.js';
import { perSecond } from './stats.js';

const CLIENT_ID = 'x509_hash:bench';
const NONCE = 'bench-nonce';

export interface PresentationVerificationBenchOptions {
  readonly rounds: number;
  /** Timed seconds per side per round; the round size is calibrated from a warm-up. */
  readonly roundSeconds: number;
  readonly progress?: (message: string) => void;
}

export const presentationVerificationFigures = async (options: PresentationVerificationBenchOptions): Promise<Figure[]> => {
  const issuer = await createTestIssuer({ intermediate: true });
  const holder = await createHolder();
  const credential = await issuer.issue({
    vct: 'urn:eudi:pid:1',
    holder,
    claims: { given_name: sd('Erika'), family_name: sd('Mustermann'), address: sd({ street: sd('Heidestrasse 17'), country: 'DE' }), birthdate: sd('1964-08-12') },
  });
  const presentation = await present(credential, { disclose: ['given_name', 'family_name', 'address', 'address.street'], keyBinding: { holder, aud: CLIENT_ID, nonce: NONCE } });
  const requirements: CredentialRequirements = { vctValues: ['urn:eudi:pid:1'], claimPaths: [['given_name'], ['family_name'], ['address', 'street']], requireHolderBinding: true };
  const context: PresentationContext = { clientId: CLIENT_ID, nonce: NONCE, now: new Date(), transactionData: [], credentialId: 'pid' };
  const trust = createTrustVerifier({ verifyTrustAnchor: false, anchors: [], crl: createCrlChecker({ timeoutMs: 1000 }) });

  const issuerJwt = presentation.slice(0, presentation.indexOf('~'));
  const kbJwt = presentation.slice(presentation.lastIndexOf('~') + 1);
  const leaf = issuer.leaf.certificate;
  const intermediate = issuer.intermediate!.certificate;
  const leafSpki = leaf.publicKey.rawData;

  const ours = async (): Promise<void> => {
    const result = await verifySdJwtVcPresentation(presentation, requirements, context, trust);
    if (isLeft(result)) throw new Error(`bench presentation refused: ${result.left.reason}`);
  };
  const reference = async (): Promise<void> => {
    const leafKey = await webcrypto.subtle.importKey('spki', leafSpki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    await compactVerify(issuerJwt, leafKey, { algorithms: ['ES256'] });
    await compactVerify(kbJwt, await importJWK(holder.publicJwk, 'ES256'), { algorithms: ['ES256'] });
    if (!(await leaf.verify({ publicKey: intermediate, signatureOnly: true }))) throw new Error('bench chain refused');
  };
  const rate = async (work: () => Promise<void>, count: number): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < count; i++) await work();
    return perSecond(count, performance.now() - started);
  };

  await rate(reference, 50);
  const perRound = Math.max(50, Math.min(20_000, Math.round((await rate(ours, 100)) * options.roundSeconds)));
  options.progress?.(`presentation verification: ${options.rounds} rounds of ${perRound} a side`);
  const oursSamples: number[] = [];
  const referenceSamples: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [ours, reference] : [reference, ours];
    for (const work of order) (work === ours ? oursSamples : referenceSamples).push(await rate(work, perRound));
  }
  return [
    {
      name: 'SD-JWT VC presentation verification',
      unit: 'presentations/s',
      ours: oursSamples,
      reference: referenceSamples,
      target: { atLeast: 0.5 },
      note:
        `ours: verifySdJwtVcPresentation (KB-JWT, leaf + intermediate chain, 4 of 6 disclosures, anchoring off), ${perRound} a round; ` +
        `reference: importing the leaf and holder public keys, the two ES256 JWS verifications and the leaf certificate's signature check, nothing else.`,
    },
  ];
};
