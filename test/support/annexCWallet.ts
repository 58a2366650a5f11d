// An independent holder answering an ISO/IEC TS 18013-7 Annex C request (`org-iso-mdoc`) as the
// browser and the wallet would: @owf/mdoc reads the request's DeviceRequest and builds the
// DeviceResponse (elements limited to the request, device signature over the `dcapi`
// SessionTranscript), the transcript is computed here with @owf/mdoc's CBOR encoder (cbor-x, not
// the connector's cbor2), and panva's `hpke` (independent of the connector's @hpke/core) seals the
// DeviceResponse to the EncryptionInfo's recipient key. Each option bends one thing, for the
// negative tests.
import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { cborDecode, cborEncode, CoseKey, DeviceRequest, Holder, NfcHandover, SessionTranscript, type IssuerSigned } from '@owf/mdoc';
import * as HPKE from 'hpke';
import { owfMdocContext } from './owfMdoc.js';

/**
 * `["dcapi", hash]`: @owf/mdoc 0.6 knows no Annex C handover, so one of its handovers is given the
 * Annex C encoding (and no device engagement or reader key, as in every remote presentation).
 */
class DcapiHandover extends NfcHandover {
  override get requiresReaderKey(): boolean {
    return false;
  }
  override get requiresDeviceEngagement(): boolean {
    return false;
  }
  override get encodedStructure(): never {
    return ['dcapi', this.selectMessage] as never;
  }
}

/** SessionTranscript `[null, null, ["dcapi", SHA-256(CBOR([encryptionInfo, origin]))]]` as @owf/mdoc's structure. */
export const owfDcapiTranscript = (encryptionInfo: string, origin: string): SessionTranscript =>
  SessionTranscript.create({
    handover: DcapiHandover.create({ selectMessage: new Uint8Array(createHash('sha256').update(cborEncode([encryptionInfo, origin])).digest()) }),
  });

const suite = new HPKE.CipherSuite(HPKE.KEM_DHKEM_P256_HKDF_SHA256, HPKE.KDF_HKDF_SHA256, HPKE.AEAD_AES_128_GCM);

/** The recipient key of a base64url EncryptionInfo as an uncompressed P-256 point. */
export const recipientPoint = (encryptionInfo: string): Uint8Array => {
  const [, parameters] = cborDecode(Buffer.from(encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
  const key = parameters.get('recipientPublicKey') as Map<number, Uint8Array>;
  return new Uint8Array(Buffer.concat([Buffer.from([4]), key.get(-2)!, key.get(-3)!]));
};

/** An EncryptionInfo like `encryptionInfo` with another nonce: another request for the same key. */
export const withNonce = (encryptionInfo: string, nonce: Uint8Array): string => {
  const [type, parameters] = cborDecode(Buffer.from(encryptionInfo, 'base64url')) as [string, Map<string, unknown>];
  return Buffer.from(cborEncode([type, new Map([...parameters, ['nonce', nonce]])])).toString('base64url');
};

export interface AnnexCRequestData {
  readonly deviceRequest: string;
  readonly encryptionInfo: string;
}

export interface AnnexCAnswerOptions {
  /** The page's origin, as the browser reports it to the wallet. */
  readonly origin: string;
  readonly issuerSigned: readonly IssuerSigned[];
  readonly devicePrivateJwk: JWK;
  /** The EncryptionInfo of the transcript (sealing and signing), in place of the request's. */
  readonly transcriptEncryptionInfo?: string;
  /** An origin for the device signature's transcript only; the sealing keeps `origin`'s. */
  readonly signedOrigin?: string;
  /** The key sealed to (uncompressed point), in place of the EncryptionInfo's. */
  readonly sealTo?: Uint8Array;
  /** EncryptedResponse's first element, "dcapi" unless given. */
  readonly type?: string;
  readonly tamper?: (cipherText: Uint8Array) => Uint8Array;
  /** Sealed in place of the DeviceResponse. */
  readonly plaintext?: Uint8Array;
}

/** The DeviceResponse's CBOR as the independent holder builds it for the request. */
export const owfDeviceResponse = async (data: AnnexCRequestData, options: AnnexCAnswerOptions): Promise<Uint8Array> => {
  const encryptionInfo = options.transcriptEncryptionInfo ?? data.encryptionInfo;
  const response = await Holder.createDeviceResponseForDeviceRequest(
    {
      deviceRequest: DeviceRequest.decode(Buffer.from(data.deviceRequest, 'base64url')),
      issuerSigned: [...options.issuerSigned],
      sessionTranscript: owfDcapiTranscript(encryptionInfo, options.signedOrigin ?? options.origin),
      signature: { signingKey: CoseKey.fromJwk({ ...options.devicePrivateJwk, alg: 'ES256' }) },
    },
    owfMdocContext,
  );
  return response.encode();
};

/** The answer's `data`: `{response: b64u(["dcapi", {enc, cipherText}])}`. */
export const annexCAnswer = async (data: AnnexCRequestData, options: AnnexCAnswerOptions): Promise<{ response: string }> => {
  const encryptionInfo = options.transcriptEncryptionInfo ?? data.encryptionInfo;
  const deviceResponse = options.plaintext ?? (await owfDeviceResponse(data, options));
  const recipient = await suite.DeserializePublicKey(options.sealTo ?? recipientPoint(data.encryptionInfo));
  const { encapsulatedSecret, ciphertext } = await suite.Seal(recipient, deviceResponse, { info: owfDcapiTranscript(encryptionInfo, options.origin).encode() });
  const cipherText = options.tamper ? options.tamper(ciphertext) : ciphertext;
  const encrypted = cborEncode([options.type ?? 'dcapi', new Map<string, Uint8Array>([['enc', encapsulatedSecret], ['cipherText', cipherText]])]);
  return { response: Buffer.from(encrypted).toString('base64url') };
};
