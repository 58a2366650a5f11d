// The checks on one presented SD-JWT VC (format `dc+sd-jwt`), in the order that rejects forgeries
// before doing any network work: issuer signature by the `x5c` leaf, then the X.509 chain and its
// trust (which may fetch CRLs), disclosures, type and validity, the DCQL claims, key binding and
// transaction data, and last the credential's status (which may fetch its Status List Token). The
// result is the spec's credential object and raw credential object (verifiedCredential.ts).
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { x509 } from '../../../crypto/x509.js';
import type { CredentialStatusChecker } from '../../status/statusCheck.js';
import type { TrustVerifier } from '../../../trust/issuerTrust.js';
import { parseX5c, verificationKeyOf } from '../../../trust/x509Chain.js';
import { describePath, isRequested, selectsAValue, type ClaimPathPointer } from '../../claimPaths.js';
import { requiresHolderBinding, type SdJwtVcQuery } from '../../dcql.js';
import { applyDisclosures, parseDisclosure, type Disclosure } from './disclosures.js';
import { isRecord } from '../../../../streams/kernel.js';
import { numericDate, parseJson, typIs } from '../../json.js';
import { verifyKeyBinding, type KeyBindingResult } from './keyBinding.js';
import type { FormatContext, PresentedCredentialVerifier } from '../../presentedCredentialVerifier.js';
import { trustedAuthoritiesOf, unmetTrustedAuthorities, type TrustedAuthorities } from '../../trustedAuthorities.js';
import type { CredentialObject, RawCredentialObject, VerificationFailure, VerifiedCredential } from '../../verifiedCredential.js';

export interface CredentialRequirements extends TrustedAuthorities {
  /** DCQL `meta.vct_values`. */
  readonly vctValues: readonly string[];
  /** DCQL `claims[].path`: each must be disclosed, and nothing else selectively disclosable may be. */
  readonly claimPaths: readonly ClaimPathPointer[];
  readonly requireHolderBinding: boolean;
}

/** What an SD-JWT VC is checked against beside its query: no SessionTranscript. */
export type PresentationContext = Omit<FormatContext, 'handover'>;

// SD-JWT VC: these carry the credential's mechanics and must be visible to every verifier; a
// disclosure of one could, say, supply an `exp` the issuer never signed in the clear.
const NEVER_DISCLOSABLE = new Set(['iss', 'nbf', 'exp', 'cnf', 'vct', 'status']);
// Reported as the credential object's own fields (issuer, validFrom, validUntil, kbKeyId), not as claims.
const NOT_CLAIMS = new Set(['iss', 'iat', 'nbf', 'exp', 'cnf', 'status']);

const fail = (reason: string): Either<VerificationFailure, never> => left({ reason, trustEnforcement: false });

interface Parts {
  readonly issuerJwt: string;
  readonly disclosures: readonly string[];
  readonly kbJwt: string | undefined;
  /** Everything up to and including the last `~`: what `sd_hash` covers. */
  readonly presentedSdJwt: string;
}

const splitPresentation = (presentation: string): Either<string, Parts> => {
  const last = presentation.lastIndexOf('~');
  if (last < 0) return left('presentation is not an SD-JWT (no ~ separator)');
  const [issuerJwt, ...disclosures] = presentation.slice(0, last).split('~');
  if (!issuerJwt) return left('presentation has no issuer-signed JWT');
  if (disclosures.some((d) => d === '')) return left('presentation has an empty disclosure');
  const kbJwt = presentation.slice(last + 1);
  return right({ issuerJwt, disclosures, kbJwt: kbJwt === '' ? undefined : kbJwt, presentedSdJwt: presentation.slice(0, last + 1) });
};

/** Verify the issuer's signature with the `x5c` leaf key and return the header and payload. */
const verifyIssuerJwt = async (jwt: string): Promise<Either<string, { chain: readonly x509.X509Certificate[]; payload: Record<string, unknown> }>> => {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return left('issuer-signed JWT is not a JWS');
  }
  if (!typIs(header.typ, 'dc+sd-jwt')) return left(`issuer-signed JWT typ is ${JSON.stringify(header.typ)}, expected "dc+sd-jwt"`);
  if (header.alg !== 'ES256') return left(`issuer-signed JWT alg is ${JSON.stringify(header.alg)}, expected "ES256"`);
  const chain = parseX5c(header.x5c);
  if (isLeft(chain)) return left(`issuer-signed JWT: ${chain.left}`);
  const [leaf] = chain.right;
  if (!leaf) return left('issuer-signed JWT: x5c header missing or empty');
  let payloadBytes: Uint8Array;
  try {
    const key = await verificationKeyOf(leaf);
    payloadBytes = (await compactVerify(jwt, key, { algorithms: ['ES256'] })).payload;
  } catch {
    return left('issuer signature does not verify with the x5c leaf certificate key');
  }
  const payload = parseJson(payloadBytes);
  return isRecord(payload) ? right({ chain: chain.right, payload }) : left('issuer-signed JWT payload is not a JSON object');
};

const parseDisclosures = (encoded: readonly string[]): Either<string, Disclosure[]> => {
  const out: Disclosure[] = [];
  for (const [index, text] of encoded.entries()) {
    const disclosure = parseDisclosure(text, index + 1);
    if (isLeft(disclosure)) return disclosure;
    out.push(disclosure.right);
  }
  return right(out);
};

export const verifySdJwtVcPresentation = async (
  presentation: string,
  requirements: CredentialRequirements,
  context: PresentationContext,
  trust: TrustVerifier,
  status: CredentialStatusChecker,
): Promise<Either<VerificationFailure, VerifiedCredential>> => {
  const parts = splitPresentation(presentation);
  if (isLeft(parts)) return fail(parts.left);
  const issued = await verifyIssuerJwt(parts.right.issuerJwt);
  if (isLeft(issued)) return fail(issued.left);
  const trusted = await trust.verify(issued.right.chain, context.now, { vct: issued.right.payload['vct'] });
  if (isLeft(trusted)) return trusted;
  const decidedBy = trusted.right.trustListDigests ? { trustListDigests: trusted.right.trustListDigests } : {};
  const unmet = unmetTrustedAuthorities(requirements, trusted.right);
  if (unmet !== undefined) return left({ reason: unmet, trustEnforcement: false, ...decidedBy });

  const disclosures = parseDisclosures(parts.right.disclosures);
  if (isLeft(disclosures)) return fail(disclosures.left);
  const forbidden = disclosures.right.find((d) => d.name !== undefined && NEVER_DISCLOSABLE.has(d.name));
  if (forbidden) return fail(`claim ${forbidden.name} must not be selectively disclosed`);
  const disclosed = applyDisclosures(issued.right.payload, disclosures.right);
  if (isLeft(disclosed)) return fail(disclosed.left);
  const { payload, disclosedPaths } = disclosed.right;

  const vct = payload['vct'];
  if (typeof vct !== 'string') return fail('credential has no vct');
  if (!requirements.vctValues.includes(vct)) return fail(`vct ${vct} is not among the requested vct_values`);

  const nbf = numericDate(payload, 'nbf');
  if (isLeft(nbf)) return fail(`credential ${nbf.left}`);
  const exp = numericDate(payload, 'exp');
  if (isLeft(exp)) return fail(`credential ${exp.left}`);
  if (nbf.right && context.now < nbf.right) return fail(`credential is not valid before ${nbf.right.toISOString()}`);
  if (exp.right && context.now >= exp.right) return fail(`credential expired at ${exp.right.toISOString()}`);

  const missing = requirements.claimPaths.find((path) => !selectsAValue(payload, path));
  if (missing) return fail(`requested claim ${describePath(missing)} is not disclosed`);
  const extra = disclosedPaths.find((path) => !isRequested(path, requirements.claimPaths));
  if (extra) return fail(`claim ${describePath(extra)} is disclosed but was not requested`);

  const transactionData = context.transactionData.filter((t) => t.credentialIds.includes(context.credentialId)).map((t) => t.encoded);
  let binding: KeyBindingResult | undefined;
  if (parts.right.kbJwt !== undefined) {
    const verified = await verifyKeyBinding(parts.right.kbJwt, {
      cnfJwk: isRecord(payload['cnf']) ? payload['cnf']['jwk'] : undefined,
      presentedSdJwt: parts.right.presentedSdJwt,
      audience: context.audience,
      nonce: context.nonce,
      now: context.now,
      transactionData,
    });
    if (isLeft(verified)) return fail(verified.left);
    binding = verified.right;
  } else if (requirements.requireHolderBinding) {
    return fail('key binding is required but the presentation has no KB-JWT');
  } else if (transactionData.length > 0) {
    return fail('transaction data names this credential but the presentation has no KB-JWT to sign it');
  }

  // Status last: the credential itself has passed every check (the draft's order), so a list is
  // fetched only for credentials that would otherwise be accepted.
  const statusFields = await status.check(issued.right.payload, trusted.right, context.now);
  if (isLeft(statusFields)) return statusFields;

  const issuer = typeof payload['iss'] === 'string' ? payload['iss'] : (trusted.right.chain[0]?.subject ?? '');
  const claims = Object.fromEntries(Object.entries(payload).filter(([name]) => !NOT_CLAIMS.has(name)));
  const validity = {
    ...(nbf.right ? { validFrom: nbf.right.toISOString() } : {}),
    ...(exp.right ? { validUntil: exp.right.toISOString() } : {}),
  };
  // Key binding fields only when it was asked for (spec: absent when key binding is off).
  const kb = binding && requirements.requireHolderBinding ? { kbKeyId: binding.kbKeyId } : {};
  const hashes = binding?.transactionDataHashes ? { transactionDataHashes: binding.transactionDataHashes } : {};
  const credential: CredentialObject = {
    issuer,
    claims,
    signatureIsValid: true,
    ...statusFields.right,
    ...trusted.right.trust,
    ...kb,
    ...(binding && requirements.requireHolderBinding ? { kbSignatureIsValid: true } : {}),
    ...hashes,
    ...validity,
  };
  const raw: RawCredentialObject = {
    claims: Buffer.from(JSON.stringify(claims), 'utf8').toString('base64'),
    issuer,
    ...validity,
    ...kb,
    ...hashes,
  };
  return right({ credential, raw, ...decidedBy });
};

/** The `dc+sd-jwt` entry of the format registry: the query's requirements, and the credential object with `format` and `vct`. */
export const sdJwtVcVerifier = (trust: TrustVerifier, status: CredentialStatusChecker): PresentedCredentialVerifier<SdJwtVcQuery> => ({
  async verify(presentation, query, claims, context) {
    const verified = await verifySdJwtVcPresentation(
      presentation,
      { vctValues: query.meta.vct_values, claimPaths: claims.map((c) => c.path), requireHolderBinding: requiresHolderBinding(query), ...trustedAuthoritiesOf(query) },
      context,
      trust,
      status,
    );
    if (isLeft(verified)) return verified;
    const { credential } = verified.right;
    return right({ ...verified.right, credential: { format: 'dc+sd-jwt', ...(typeof credential.claims['vct'] === 'string' ? { vct: credential.claims['vct'] } : {}), ...credential } });
  },
});
