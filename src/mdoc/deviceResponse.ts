// A DeviceResponse (ISO/IEC 18013-5, 8.3.2.1.2.2) as an OpenID4VP 1.0 wallet returns it for an
// `mso_mdoc` credential query (Appendix B.2): base64url CBOR holding one document (HAIP), whose
// issuer-signed part is verified against its MSO and whose device signature covers the
// SessionTranscript of this request. What the issuer signed (the elements) is returned as JSON;
// judging the issuer's chain, choosing the requested elements and the status are the caller's.
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { dataItem, decodeCbor, embeddedBytes, encodeCbor, isMap, Tag } from './cbor.js';
import { parseCoseSign1, publicKeyOf, verifyCoseSign1 } from './cose.js';
import { parseIssuerSigned, verifyIssuerSigned, type VerifiedIssuerSigned } from './issuerSigned.js';
import { sessionTranscript, type HandoverInfo } from './sessionTranscript.js';

export interface DeviceResponseExpectations {
  /** DCQL `meta.doctype_value`. */
  readonly docType: string;
  readonly handover: HandoverInfo;
  readonly now: Date;
}

export interface VerifiedDocument extends VerifiedIssuerSigned {
  readonly docType: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface Document {
  readonly docType: unknown;
  readonly issuerSigned: unknown;
  readonly deviceSigned: unknown;
}

/** The documents of a DeviceResponse with version 1.x and status 0 (OK), each a map, as decoded. */
export const deviceResponseDocuments = (value: unknown): Either<string, readonly Map<unknown, unknown>[]> => {
  if (!isMap(value)) return left('DeviceResponse is not a CBOR map');
  const version = value.get('version');
  if (typeof version !== 'string' || !/^1\.\d+$/.test(version)) return left(`DeviceResponse version ${JSON.stringify(version ?? null)} is not 1.x`);
  const status = value.get('status');
  if (status !== 0) return left(`DeviceResponse status is ${JSON.stringify(status ?? null)}, not 0 (OK)`);
  const documents = value.get('documents');
  if (!Array.isArray(documents)) return left('DeviceResponse holds no documents');
  if (!documents.every(isMap)) return left('DeviceResponse document is not a map');
  return right(documents);
};

const singleDocument = (value: unknown): Either<string, Document> => {
  const documents = deviceResponseDocuments(value);
  if (isLeft(documents)) return documents;
  if (documents.right.length !== 1) return left('DeviceResponse does not hold exactly one document');
  const [document] = documents.right as [Map<unknown, unknown>];
  return right({ docType: document.get('docType'), issuerSigned: document.get('issuerSigned'), deviceSigned: document.get('deviceSigned') });
};

/**
 * mdoc authentication by signature (ISO/IEC 18013-5, 9.1.3): a COSE_Sign1 by the MSO's device key
 * over DeviceAuthenticationBytes = #6.24(["DeviceAuthentication", SessionTranscript, DocType,
 * DeviceNameSpacesBytes]), with the device namespaces' bytes as sent.
 */
const verifyDeviceSigned = (deviceSigned: unknown, verified: VerifiedIssuerSigned, docType: string, handover: HandoverInfo): string | undefined => {
  if (!isMap(deviceSigned)) return 'document has no deviceSigned';
  const nameSpacesBytes = embeddedBytes(deviceSigned.get('nameSpaces'));
  if (!nameSpacesBytes) return 'deviceSigned nameSpaces is not DeviceNameSpacesBytes (tag 24)';
  const deviceAuth = deviceSigned.get('deviceAuth');
  if (!isMap(deviceAuth)) return 'deviceSigned has no deviceAuth';
  if (deviceAuth.has('deviceMac')) {
    return 'device authentication by deviceMac cannot be checked: OpenID4VP gives the verifier no key for it; a deviceSignature is required';
  }
  const signature = parseCoseSign1(deviceAuth.get('deviceSignature'), 'deviceSignature');
  if (isLeft(signature)) return signature.left;
  if (signature.right.payload !== null) return 'deviceSignature payload is not detached';
  const deviceAuthentication = encodeCbor(dataItem(['DeviceAuthentication', sessionTranscript(handover), docType, new Tag(24, nameSpacesBytes)]));
  return verifyCoseSign1(signature.right, publicKeyOf(verified.mso.deviceKey), deviceAuthentication)
    ? undefined
    : 'deviceSignature does not verify with the MSO device key over this request\'s SessionTranscript';
};

/** Verify a base64url DeviceResponse for one `mso_mdoc` credential query. */
export const verifyDeviceResponse = (presentation: string, expected: DeviceResponseExpectations): Either<string, VerifiedDocument> => {
  if (!BASE64URL.test(presentation)) return left('mso_mdoc presentation is not base64url');
  const decoded = decodeCbor(Buffer.from(presentation, 'base64url'));
  if (isLeft(decoded)) return left(`DeviceResponse ${decoded.left}`);
  const document = singleDocument(decoded.right);
  if (isLeft(document)) return document;
  const { docType } = document.right;
  if (docType !== expected.docType) return left(`document docType ${JSON.stringify(docType ?? null)} is not the requested ${expected.docType}`);
  const issuerSigned = parseIssuerSigned(document.right.issuerSigned);
  if (isLeft(issuerSigned)) return issuerSigned;
  const verified = verifyIssuerSigned(issuerSigned.right, { docType: expected.docType, now: expected.now });
  if (isLeft(verified)) return verified;
  const unauthenticated = verifyDeviceSigned(document.right.deviceSigned, verified.right, expected.docType, expected.handover);
  if (unauthenticated) return left(unauthenticated);
  return right({ ...verified.right, docType: expected.docType });
};
