// ISO/IEC TS 18013-7 Annex C over the Digital Credentials API (`"protocol": "org-iso-mdoc"`; the
// structures in src/mdoc/annexC.ts), the request's side: which DCQL queries it can ask (mdocs
// alone, each docType once: a DeviceResponse has no query ids, so each returned document is
// matched to its query by docType), and the request `data` built from the session's query, nonce
// and recipient key: one DocRequest per credential query, asking the union of its claims (claim
// sets and values are judged on the answer, as for OpenID4VP; annexCResponse.ts).
import type { JWK } from 'jose';
import type { FieldError } from '../../http/problem.js';
import { deviceRequest, encryptionInfo } from '../../mdoc/annexC.js';
import type { DcqlQuery } from '../dcql.js';

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
export const nonceBytes = (nonce: string): Uint8Array => Buffer.from(nonce, 'base64url');

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

