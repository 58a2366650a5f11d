// A presentation session answered by ISO/IEC TS 18013-7 Annex C over the Digital Credentials API
// (`"protocol": "org-iso-mdoc"`; the structures in src/mdoc/annexC.ts). Only for DCQL queries that
// ask for mdocs alone, each docType once: a DeviceRequest has no query ids, so each returned
// document is matched to its query by docType. The request carries one DocRequest per credential
// query, asking the union of its claims (claim sets and values are judged on the answer, as for
// OpenID4VP). The answer is opened with the session's recipient key and the SessionTranscript of
// the origin the browser reported, and its documents go through the same checks as a `vp_token`
// (vpToken.ts): credential sets, claim sets, values, and each mdoc's own checks (msoMdoc.ts) with
// that SessionTranscript for the device signature.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import type { FieldError } from '../http/problem.js';
import { deviceRequest, documentPresentations, encryptionInfo, openEncryptedResponse } from '../mdoc/annexC.js';
import type { AnnexCHandoverInfo } from '../mdoc/sessionTranscript.js';
import type { SealedRequest } from './createRequest.js';
import type { DcqlQuery } from './dcql.js';
import type { PresentationVerifier } from './presentationVerifier.js';
import type { VerificationFailure } from './sdJwtVc.js';
import { verifyVpToken, type VerifiedPresentation } from './vpToken.js';

/** The Digital Credentials API protocol identifier of Annex C. */
export const ANNEX_C_PROTOCOL = 'org-iso-mdoc';

/** Why a DCQL query cannot be asked by Annex C: a query that is not mso_mdoc, or a docType asked twice. */
export const annexCQueryProblems = (query: DcqlQuery, location: string): FieldError[] => {
  const seen = new Set<string>();
  return query.credentials.flatMap((credential, i): FieldError[] => {
    if (credential.format !== 'mso_mdoc') {
      return [{ location: `${location}.credentials[${i}].format`, message: `${ANNEX_C_PROTOCOL} asks for mdocs only; this query is not mso_mdoc`, value: credential.format }];
    }
    const docType = credential.meta.doctype_value;
    if (seen.has(docType)) {
      return [{ location: `${location}.credentials[${i}].meta.doctype_value`, message: `${ANNEX_C_PROTOCOL} tells documents apart by docType; another query asks the same one`, value: docType }];
    }
    seen.add(docType);
    return [];
  });
};

/** The request's `data` for the page: `{deviceRequest, encryptionInfo}`. */
export interface AnnexCRequestData {
  readonly deviceRequest: string;
  readonly encryptionInfo: string;
}

/** The session's nonce (base64url, as recorded) as EncryptionInfo's `nonce` bytes. */
const nonceBytes = (nonce: string): Uint8Array => Buffer.from(nonce, 'base64url');

/**
 * The request `data` for an mdoc-only DCQL query (annexCQueryProblems must be empty): one
 * DocRequest per credential query, each element with the claim's `intent_to_retain` (false when
 * not given), and the EncryptionInfo naming the session's nonce and recipient public key.
 */
export const annexCRequestData = (query: DcqlQuery, nonce: string, recipientPublicKey: JWK): AnnexCRequestData => ({
  deviceRequest: deviceRequest(
    query.credentials.flatMap((credential) => {
      if (credential.format !== 'mso_mdoc') return [];
      const nameSpaces = new Map<string, Map<string, boolean>>();
      for (const claim of credential.claims) {
        const [namespace, element] = claim.path;
        const elements = nameSpaces.get(namespace) ?? new Map<string, boolean>();
        elements.set(element, (elements.get(element) ?? false) || (claim.intent_to_retain ?? false));
        nameSpaces.set(namespace, elements);
      }
      return [{ docType: credential.meta.doctype_value, nameSpaces }];
    }),
  ),
  encryptionInfo: encryptionInfo(nonceBytes(nonce), recipientPublicKey),
});

/** What the session holds for its Annex C answer. */
export interface AnnexCSession {
  readonly request: SealedRequest;
  /** The request's full client_id and nonce (the nonce also EncryptionInfo's, base64url-decoded). */
  readonly clientId: string;
  readonly nonce: string;
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
  const vpToken: Record<string, string[]> = {};
  for (const { docType, presentation } of documents.right) {
    const query = session.request.dcqlQuery.credentials.find((c) => c.format === 'mso_mdoc' && c.meta.doctype_value === docType);
    if (query === undefined) return left(mismatch(`the DeviceResponse holds a document of docType ${JSON.stringify(docType ?? null)}, which the request did not ask for`));
    (vpToken[query.id] ??= []).push(presentation);
  }
  const verified = await verifyVpToken(vpToken, session.request, { audience: session.clientId, nonce: session.nonce, now, handover }, verify);
  return isLeft(verified) ? left({ _tag: 'Unverified', failure: verified.left }) : right(verified.right);
};
