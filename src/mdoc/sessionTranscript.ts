// The SessionTranscript a wallet's device signature covers in OpenID4VP (1.0, B.2.6):
// [null, null, Handover]. When the request came by redirect (B.2.6.1) the handover is
// OpenID4VPHandover, hashing the request's client_id (with its prefix), nonce, the
// response-encryption key's thumbprint and response_uri; over the Digital Credentials API
// (B.2.6.2) it is OpenID4VPDCAPIHandover, hashing the page's origin (without `origin:`), the nonce
// and the thumbprint. ISO/IEC TS 18013-7 Annex C over the DC API (`org-iso-mdoc`) has its own:
// ["dcapi", SHA-256(CBOR([Base64EncryptionInfo, origin]))] (annexC.ts). A device signature made
// for another verifier, page, request or key therefore does not verify here.
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { encodeCbor } from './cbor.js';

export interface OpenID4VPHandoverInfo {
  /** The full client_id, e.g. `x509_hash:…`. */
  readonly clientId: string;
  readonly nonce: string;
  /** RFC 7638 SHA-256 thumbprint of the key the response was encrypted to; null when it was not encrypted. */
  readonly jwkThumbprint: Uint8Array | null;
  readonly responseUri: string;
}

export interface OpenID4VPDCAPIHandoverInfo {
  /** The page's origin as the browser gave it, not prefixed with `origin:`. */
  readonly origin: string;
  readonly nonce: string;
  /** RFC 7638 SHA-256 thumbprint of the key the response was encrypted to (`dc_api.jwt`); null for `dc_api`. */
  readonly jwkThumbprint: Uint8Array | null;
}

/** What ISO/IEC TS 18013-7 Annex C's `dcapi` handover hashes (dcapiInfo). */
export interface AnnexCHandoverInfo {
  /** The request's `encryptionInfo`, the base64url string exactly as the request carried it. */
  readonly encryptionInfo: string;
  /** The page's origin as the browser gave it. */
  readonly origin: string;
}

/** The handover of the way the request came: by redirect, over the DC API (it names an `origin`), or by Annex C (it names the `encryptionInfo`). */
export type HandoverInfo = OpenID4VPHandoverInfo | OpenID4VPDCAPIHandoverInfo | AnnexCHandoverInfo;

/** `OpenID4VPHandover = ["OpenID4VPHandover", sha-256(OpenID4VPHandoverInfoBytes)]` */
export const openID4VPHandover = (info: OpenID4VPHandoverInfo): unknown[] => {
  const infoBytes = encodeCbor([info.clientId, info.nonce, info.jwkThumbprint, info.responseUri]);
  return ['OpenID4VPHandover', createHash('sha256').update(infoBytes).digest()];
};

/** `OpenID4VPDCAPIHandover = ["OpenID4VPDCAPIHandover", sha-256(OpenID4VPDCAPIHandoverInfoBytes)]` */
export const openID4VPDCAPIHandover = (info: OpenID4VPDCAPIHandoverInfo): unknown[] => {
  const infoBytes = encodeCbor([info.origin, info.nonce, info.jwkThumbprint]);
  return ['OpenID4VPDCAPIHandover', createHash('sha256').update(infoBytes).digest()];
};

/** `["dcapi", sha-256(CBOR(dcapiInfo))]`, dcapiInfo = `[Base64EncryptionInfo, SerializedOrigin]` (Annex C) */
export const dcapiHandover = (info: AnnexCHandoverInfo): unknown[] => ['dcapi', createHash('sha256').update(encodeCbor([info.encryptionInfo, info.origin])).digest()];

const handover = (info: HandoverInfo): unknown[] => {
  if ('encryptionInfo' in info) return dcapiHandover(info);
  return 'origin' in info ? openID4VPDCAPIHandover(info) : openID4VPHandover(info);
};

export const sessionTranscript = (info: HandoverInfo): unknown[] => [null, null, handover(info)];

export const sessionTranscriptBytes = (info: HandoverInfo): Uint8Array => encodeCbor(sessionTranscript(info));

/** The RFC 7638 SHA-256 thumbprint of a public JWK as bytes (the handover's `jwkThumbprint`). */
export const jwkThumbprintBytes = async (jwk: JWK): Promise<Uint8Array> =>
  Buffer.from(await calculateJwkThumbprint(jwk, 'sha256'), 'base64url');
