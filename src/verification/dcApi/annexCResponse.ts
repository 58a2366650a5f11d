// ISO/IEC TS 18013-7 Annex C over the Digital Credentials API (`"protocol": "org-iso-mdoc"`), the
// answer's side: opened with the session's recipient key and the SessionTranscript of the origin
// the browser reported, its documents go through the same checks as a `vp_token` (vpToken.ts):
// credential sets, claim sets, values, and each mdoc's own checks (formats/msoMdoc/) with that
// SessionTranscript for the device signature.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { documentPresentations, encryptionInfo, openEncryptedResponse } from '../../mdoc/annexC.js';
import type { AnnexCHandoverInfo } from '../../mdoc/sessionTranscript.js';
import { nonceBytes } from './annexCRequest.js';
import type { PresentationVerifier } from '../presentedCredentialVerifier.js';
import type { SealedRequest } from '../sealedRequest.js';
import type { VerificationFailure } from '../verifiedCredential.js';
import { verifyVpToken, type VerifiedPresentation } from '../vpToken.js';

/** What the session holds for its Annex C answer. */
export interface AnnexCSession {
  readonly request: SealedRequest;
  /** The request's full client_id and nonce (the nonce also EncryptionInfo's, base64url-decoded). */
  readonly clientId: string;
  readonly nonce: string;
  /** The tenant whose request it is. */
  readonly tenantId: string;
  /** The recipient key pair of the request's EncryptionInfo, as a private JWK. */
  readonly recipientPrivateKey: JWK;
}

/** An answer that cannot be read (PROCESSING_ERROR), or whose credentials fail (VERIFICATION_FAILED). */
export type AnnexCFailure =
  | { readonly _tag: 'Unreadable'; readonly reason: string }
  | { readonly _tag: 'Unverified'; readonly failure: VerificationFailure };

const mismatch = (reason: string): AnnexCFailure => ({ _tag: 'Unverified', failure: { reason, trustEnforcement: false } });

/**
 * Opens and verifies an Annex C answer (`data.response`) for the session, given the origin the
 * browser reported (already checked to be one of the session's expected origins).
 */
export const verifyAnnexCResponse = async (
  response: string,
  session: AnnexCSession,
  origin: string,
  now: Date,
  verify: PresentationVerifier,
): Promise<Either<AnnexCFailure, VerifiedPresentation>> => {
  const { kty, crv, x, y } = session.recipientPrivateKey;
  // The EncryptionInfo is rebuilt from what the session recorded; its encoding is deterministic,
  // so these are the bytes the request carried.
  const handover: AnnexCHandoverInfo = { encryptionInfo: encryptionInfo(nonceBytes(session.nonce), { kty, crv, x, y }), origin };
  const opened = await openEncryptedResponse(response, session.recipientPrivateKey, handover);
  if (isLeft(opened)) return left({ _tag: 'Unreadable', reason: opened.left });
  const documents = documentPresentations(opened.right);
  if (isLeft(documents)) return left(mismatch(documents.left));
  const vpToken = new Map<string, string[]>();
  for (const { docType, presentation } of documents.right) {
    const query = session.request.dcqlQuery.credentials.find((c) => c.format === 'mso_mdoc' && c.meta.doctype_value === docType);
    if (query === undefined) return left(mismatch(`the DeviceResponse holds a document of docType ${JSON.stringify(docType ?? null)}, which the request did not ask for`));
    vpToken.set(query.id, [...(vpToken.get(query.id) ?? []), presentation]);
  }
  const verified = await verifyVpToken(Object.fromEntries(vpToken), session.request, { audience: session.clientId, nonce: session.nonce, now, handover, tenantId: session.tenantId }, verify);
  return isLeft(verified) ? left({ _tag: 'Unverified', failure: verified.left }) : right(verified.right);
};
