// The SessionTranscript a wallet's device signature covers when the request came by redirect
// (OpenID4VP 1.0, B.2.6.1): [null, null, OpenID4VPHandover], the handover hashing the request's
// client_id (with its prefix), nonce, the response-encryption key's thumbprint and response_uri.
// A device signature made for another verifier, request or key therefore does not verify here.
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

/** `OpenID4VPHandover = ["OpenID4VPHandover", sha-256(OpenID4VPHandoverInfoBytes)]` */
export const openID4VPHandover = (info: OpenID4VPHandoverInfo): unknown[] => {
  const infoBytes = encodeCbor([info.clientId, info.nonce, info.jwkThumbprint, info.responseUri]);
  return ['OpenID4VPHandover', createHash('sha256').update(infoBytes).digest()];
};

/**
 * `SessionTranscript = [DeviceEngagementBytes, EReaderKeyBytes, Handover]` (ISO/IEC 18013-5,
 * 9.1.5.1); presentations without device engagement (OpenID4VP, the DC API) have null for both.
 */
export type SessionTranscript = readonly [null, null, readonly unknown[]];

export const sessionTranscript = (info: OpenID4VPHandoverInfo): SessionTranscript => [null, null, openID4VPHandover(info)];

export const sessionTranscriptBytes = (info: OpenID4VPHandoverInfo): Uint8Array => encodeCbor(sessionTranscript(info));

/** The RFC 7638 SHA-256 thumbprint of a public JWK as bytes (the handover's `jwkThumbprint`). */
export const jwkThumbprintBytes = async (jwk: JWK): Promise<Uint8Array> =>
  Buffer.from(await calculateJwkThumbprint(jwk, 'sha256'), 'base64url');
