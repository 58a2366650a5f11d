// The checks on one presented mdoc (format `mso_mdoc`, OpenID4VP 1.0 Appendix B.2): the
// DeviceResponse itself (src/mdoc: issuer signature by the x5chain leaf, MSO, docType, validity,
// digests, device signature over this request's SessionTranscript) before any network work, then
// the issuer chain's trust and the query's trusted_authorities exactly as for an SD-JWT VC, the
// requested elements, and last the MSO's status list entry with the same status checker. The
// result is the same credential object as the SD-JWT VC path's, with `format` and `doctype`.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint } from 'jose';
import { subjectAltNamesOf } from '../../../crypto/certificates.js';
import type { x509 } from '../../../crypto/x509.js';
import type { Logger } from '../../../log.js';
import { verifyDeviceResponse } from '../../../mdoc/deviceResponse.js';
import type { MdocClaims } from '../../../mdoc/issuerSigned.js';
import { tdateText } from '../../../mdoc/claims.js';
import type { CredentialStatusChecker } from '../../status/statusCheck.js';
import type { TrustVerifier } from '../../../trust/issuerTrust.js';
import { defineOwn, ownValue } from '../../../ownProperty.js';
import type { MsoMdocQuery } from '../../dcql.js';
import type { FormatContext, PresentedCredentialVerifier } from '../../presentedCredentialVerifier.js';
import { trustedAuthoritiesOf, unmetTrustedAuthorities, type TrustedAuthorities } from '../../trustedAuthorities.js';
import type { CredentialObject, RawCredentialObject, VerificationFailure } from '../../verifiedCredential.js';

export interface MdocRequirements extends TrustedAuthorities {
  /** DCQL `meta.doctype_value`. */
  readonly doctypeValue: string;
  /** DCQL `claims[].path` of an mdoc query: `[namespace, elementIdentifier]`. */
  readonly claimPaths: readonly (readonly [string, string])[];
}

/** What the SessionTranscript's handover binds (the request, and the redirect's client or the DC API page), and when. */
export type MdocPresentationContext = Pick<FormatContext, 'handover' | 'now'>;

export interface MdocCredentialObject extends CredentialObject {
  readonly format: 'mso_mdoc';
  readonly doctype: string;
}

export interface VerifiedMdocCredential {
  readonly credential: MdocCredentialObject;
  readonly raw: RawCredentialObject;
  readonly trustListDigests?: readonly string[];
  /** `namespace/element` of each returned element the query did not ask for: dropped, for the caller to log by name. */
  readonly droppedElements: readonly string[];
}

const fail = (reason: string): Either<VerificationFailure, never> => left({ reason, trustEnforcement: false });

/** The document signer named as the outcome's `issuer`: its subjectAltName URI, else its subject DN. */
const issuerOf = (signer: x509.X509Certificate): string => subjectAltNamesOf(signer).find((n) => n.type === 'url')?.value ?? signer.subject;

/** Only the requested elements; the others are dropped before anything leaves this function. */
const requestedClaims = (claims: MdocClaims, paths: MdocRequirements['claimPaths']): Either<string, { kept: MdocClaims; dropped: string[] }> => {
  const kept: MdocClaims = {};
  for (const [namespace, element] of paths) {
    const elements = ownValue(claims, namespace);
    if (!elements || !Object.hasOwn(elements, element)) return left(`requested element ${namespace}/${element} is not returned`);
    const keptElements = ownValue(kept, namespace) ?? {};
    defineOwn(keptElements, element, elements[element]);
    defineOwn(kept, namespace, keptElements);
  }
  const dropped = Object.entries(claims).flatMap(([namespace, elements]) =>
    Object.keys(elements).filter((element) => !Object.hasOwn(ownValue(kept, namespace) ?? {}, element)).map((element) => `${namespace}/${element}`),
  );
  return right({ kept, dropped });
};

export const verifyMsoMdocPresentation = async (
  presentation: string,
  requirements: MdocRequirements,
  context: MdocPresentationContext,
  trust: TrustVerifier,
  status: CredentialStatusChecker,
): Promise<Either<VerificationFailure, VerifiedMdocCredential>> => {
  const document = verifyDeviceResponse(presentation, {
    docType: requirements.doctypeValue,
    now: context.now,
    handover: context.handover,
  });
  if (isLeft(document)) return fail(document.left);
  const { chain, mso, claims } = document.right;
  const trusted = await trust.verify(chain, context.now, { doctype: mso.docType });
  if (isLeft(trusted)) return trusted;
  const decidedBy = trusted.right.trustListDigests ? { trustListDigests: trusted.right.trustListDigests } : {};
  const unmet = unmetTrustedAuthorities(requirements, trusted.right);
  if (unmet !== undefined) return left({ reason: unmet, trustEnforcement: false, ...decidedBy });
  const requested = requestedClaims(claims, requirements.claimPaths);
  if (isLeft(requested)) return fail(requested.left);

  // Status last, as for SD-JWT VCs: no list is fetched for a credential that fails anyway.
  const statusFields = await status.check(mso.status === undefined ? {} : { status: mso.status }, trusted.right, context.now, 'cwt');
  if (isLeft(statusFields)) return statusFields;

  const [signer] = chain;
  const issuer = signer ? issuerOf(signer) : '';
  const validity = { validFrom: tdateText(mso.validityInfo.validFrom), validUntil: tdateText(mso.validityInfo.validUntil) };
  const kbKeyId = await calculateJwkThumbprint(mso.deviceKey, 'sha256');
  const credential: MdocCredentialObject = {
    format: 'mso_mdoc',
    doctype: mso.docType,
    issuer,
    claims: requested.right.kept,
    signatureIsValid: true,
    ...statusFields.right,
    ...trusted.right.trust,
    kbKeyId,
    kbSignatureIsValid: true,
    ...validity,
  };
  const raw: RawCredentialObject = {
    claims: Buffer.from(JSON.stringify(requested.right.kept), 'utf8').toString('base64'),
    issuer,
    ...validity,
    kbKeyId,
  };
  return right({ credential, raw, droppedElements: requested.right.dropped, ...decidedBy });
};

/** The `mso_mdoc` entry of the format registry: the query's requirements; the names of dropped elements logged, never their values. */
export const msoMdocVerifier = (trust: TrustVerifier, status: CredentialStatusChecker, log: Logger): PresentedCredentialVerifier<MsoMdocQuery> => ({
  async verify(presentation, query, claims, context) {
    const verified = await verifyMsoMdocPresentation(
      presentation,
      { doctypeValue: query.meta.doctype_value, claimPaths: claims.map((c) => c.path), ...trustedAuthoritiesOf(query) },
      context,
      trust,
      status,
    );
    if (isLeft(verified)) return verified;
    const { droppedElements, ...delivered } = verified.right;
    // Names only: the values never leave the format module.
    if (droppedElements.length > 0) log.info('mdoc elements not asked for were dropped', { credentialId: context.credentialId, elements: droppedElements });
    return right(delivered);
  },
});
