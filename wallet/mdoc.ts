// The holder's side of an mdoc (ISO/IEC 18013-5) over OpenID4VP 1.0: a DeviceResponse holding
// the issued IssuerSigned with only the chosen elements (each IssuerSignedItemBytes passed on as
// the issuer signed it) and a device signature over the request's SessionTranscript (the redirect
// flow's here; the Digital Credentials API's handovers in dcApi.ts and annexC.ts). Tests bend
// the response through explicit options only (PresentMdocOptions), so each negative case says what it breaks.
import { KeyObject, sign } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { CryptoKey, JWK } from 'jose';
import { dataItem, decodeCbor, encodeCbor, Tag } from '../src/mdoc/cbor.js';
import { coseSign1ToSign } from '../src/mdoc/cose.js';
import { parseIssuerSigned, verifyIssuerSigned, type IssuerSigned, type MdocClaims } from '../src/mdoc/issuerSigned.js';
import { sessionTranscript, type OpenID4VPHandoverInfo } from '../src/mdoc/sessionTranscript.js';
import { thumbprint } from './keys.js';

export interface PresentMdocOptions {
  readonly docType: string;
  /** `[namespace, elementIdentifier]` pairs to disclose. */
  readonly disclose: readonly (readonly [string, string])[];
  readonly deviceKey: CryptoKey;
  readonly handover: OpenID4VPHandoverInfo;
  /** Replaces the document's docType (not the one the device signs), for negative tests. */
  readonly documentDocType?: string;
  /** Changes an element's embedded bytes after the issuer signed them, for negative tests. */
  readonly tamper?: (namespace: string, item: Uint8Array) => Uint8Array;
  readonly status?: number;
  /** How many copies of the document the response holds (HAIP allows one). */
  readonly copies?: number;
}

/** The issued credential (IssuerSigned CBOR, as the credential endpoint returns it base64url). */
export const readIssuerSigned = (credential: string): IssuerSigned => {
  const decoded = decodeCbor(Buffer.from(credential, 'base64url'));
  const parsed = isLeft(decoded) ? decoded : parseIssuerSigned(decoded.right);
  if (isLeft(parsed)) throw new Error(`not an mdoc credential: ${parsed.left}`);
  return parsed.right;
};

/** The element identifiers of each namespace the credential holds. */
export const elementsOf = (issuerSigned: IssuerSigned): [string, string][] =>
  [...issuerSigned.nameSpaces].flatMap(([namespace, items]) =>
    items.map((item): [string, string] => {
      const decoded = decodeCbor(item);
      const identifier = !isLeft(decoded) && decoded.right instanceof Map ? decoded.right.get('elementIdentifier') : undefined;
      return [namespace, String(identifier)];
    }),
  );

const selected = (issuerSigned: IssuerSigned, options: Omit<PresentMdocOptions, 'handover'>): Map<string, Tag[]> => {
  const nameSpaces = new Map<string, Tag[]>();
  for (const [namespace, items] of issuerSigned.nameSpaces) {
    const chosen = items.filter((item) => {
      const decoded = decodeCbor(item);
      const identifier = !isLeft(decoded) && decoded.right instanceof Map ? decoded.right.get('elementIdentifier') : undefined;
      return options.disclose.some(([ns, element]) => ns === namespace && element === identifier);
    });
    if (chosen.length > 0) nameSpaces.set(namespace, chosen.map((item) => new Tag(24, options.tamper ? options.tamper(namespace, item) : item)));
  }
  return nameSpaces;
};

/** One Document of a DeviceResponse: the chosen elements and a device signature over `transcript` (a SessionTranscript). */
export const mdocDocument = (issuerSigned: IssuerSigned, options: Omit<PresentMdocOptions, 'handover'>, transcript: unknown): Map<string, unknown> => {
  const deviceNameSpacesBytes = dataItem(new Map());
  const deviceAuthentication = encodeCbor(dataItem(['DeviceAuthentication', transcript, options.docType, deviceNameSpacesBytes]));
  const toSign = coseSign1ToSign(deviceAuthentication, new Map(), { detached: true });
  const deviceSignature = toSign.withSignature(sign('sha256', toSign.toBeSigned, { key: KeyObject.from(options.deviceKey), dsaEncoding: 'ieee-p1363' }));
  const { issuerAuth } = issuerSigned;
  return new Map<string, unknown>([
    ['docType', options.documentDocType ?? options.docType],
    ['issuerSigned', new Map<string, unknown>([
      ['nameSpaces', selected(issuerSigned, options)],
      ['issuerAuth', [issuerAuth.protectedBytes, issuerAuth.unprotectedHeader, issuerAuth.payload, issuerAuth.signature]],
    ])],
    ['deviceSigned', new Map<string, unknown>([['nameSpaces', deviceNameSpacesBytes], ['deviceAuth', new Map([['deviceSignature', deviceSignature]])]])],
  ]);
};

/** The DeviceResponse CBOR holding `documents`. */
export const deviceResponseBytes = (documents: readonly Map<string, unknown>[], status = 0): Uint8Array =>
  encodeCbor(new Map<string, unknown>([
    ['version', '1.0'],
    ['documents', documents],
    ['status', status],
  ]));

/** A base64url DeviceResponse (the vp_token entry for an `mso_mdoc` credential query), device-signed over the redirect flow's SessionTranscript. */
export const presentMdoc = (issuerSigned: IssuerSigned, options: PresentMdocOptions): string => {
  const document = mdocDocument(issuerSigned, options, sessionTranscript(options.handover));
  return Buffer.from(deviceResponseBytes(Array.from({ length: options.copies ?? 1 }, () => document), options.status)).toString('base64url');
};

/**
 * An issued mdoc checked as a careful wallet would before keeping it: the issuer's signature by
 * its x5chain leaf, the MSO for the docType the issuer's metadata announced, its validity, every
 * element's digest, and the device key being the wallet's. Returns the elements as JSON.
 */
export const checkIssuedMdoc = async (credential: string, expected: { readonly docType: string; readonly holder: JWK; readonly now?: Date }): Promise<MdocClaims> => {
  const verified = verifyIssuerSigned(readIssuerSigned(credential), { docType: expected.docType, now: expected.now ?? new Date() });
  if (isLeft(verified)) throw new Error(`the mdoc does not verify: ${verified.left}`);
  if ((await thumbprint(verified.right.mso.deviceKey)) !== (await thumbprint(expected.holder))) throw new Error('the mdoc is not bound to the wallet key');
  return verified.right.claims;
};
