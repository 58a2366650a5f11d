// ISO/IEC TS 18013-7:2024 Annex C: an mdoc request and its encrypted answer over the W3C Digital
// Credentials API (`"protocol": "org-iso-mdoc"`). The structures, as the open implementations
// build them byte for byte (the Multipaz verifier server and wallet in
// openwallet-foundation-labs/identity-credential; walt.id's waltid-18013-7-verifier; A-SIT's
// vck `DCAPIInfo`, `EncryptionInfo`):
//   request `data`     {"deviceRequest": b64u(DeviceRequest), "encryptionInfo": b64u(EncryptionInfo)}
//   EncryptionInfo     ["dcapi", {"nonce": bstr, "recipientPublicKey": COSE_Key}]
//   dcapiInfo          [Base64EncryptionInfo, SerializedOrigin]: the `encryptionInfo` string exactly
//                      as the request carried it, and the page's origin as HTML serialises it
//                      (`https://host[:port]`, no prefix, no trailing slash)
//   SessionTranscript  [null, null, ["dcapi", SHA-256(CBOR(dcapiInfo))]] (sessionTranscript.ts)
//   answer `data`      {"response": b64u(EncryptedResponse)}
//   EncryptedResponse  ["dcapi", {"enc": bstr, "cipherText": bstr}], `enc` the sender's ephemeral
//                      P-256 key as an uncompressed point
//   cipherText         HPKE base mode (hpke.ts) of the DeviceResponse's CBOR, with info = the
//                      SessionTranscript's CBOR (not tag-24 wrapped) and an empty AAD (Multipaz
//                      through Tink's HybridEncrypt context info, walt.id through BouncyCastle's
//                      HPKE `info` with `aad` empty)
// Base64url is without padding throughout.
import type { Either } from 'fp-ts/lib/Either.js';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { dataItem, decodeCbor, encodeCbor, isBytes, isMap } from './cbor.js';
import { jwkToCoseKey } from './cose.js';
import { deviceResponseDocuments } from './deviceResponse.js';
import { hpkeOpen } from './hpke.js';
import { sessionTranscriptBytes, type AnnexCHandoverInfo } from './sessionTranscript.js';

const DCAPI = 'dcapi';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** One ItemsRequest (ISO/IEC 18013-5, 8.3.2.1.2.1): per namespace, each element with its IntentToRetain. */
export interface ItemsRequest {
  readonly docType: string;
  readonly nameSpaces: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
}

/**
 * DeviceRequest = {"version": "1.0", "docRequests": [+ DocRequest]}, each DocRequest
 * {"itemsRequest": #6.24(ItemsRequest)} without `readerAuth`.
 */
export const deviceRequest = (items: readonly ItemsRequest[]): string =>
  base64url(
    encodeCbor(
      new Map<string, unknown>([
        ['version', '1.0'],
        ['docRequests', items.map((item) => new Map([['itemsRequest', dataItem(new Map<string, unknown>([['docType', item.docType], ['nameSpaces', item.nameSpaces]]))]]))],
      ]),
    ),
  );

/** Base64EncryptionInfo: `["dcapi", {"nonce": nonce, "recipientPublicKey": COSE_Key}]`, base64url. */
export const encryptionInfo = (nonce: Uint8Array, recipientPublicKey: JWK): string =>
  base64url(encodeCbor([DCAPI, new Map<string, unknown>([['nonce', nonce], ['recipientPublicKey', jwkToCoseKey(recipientPublicKey)]])]));

interface EncryptedResponse {
  readonly enc: Uint8Array;
  readonly cipherText: Uint8Array;
}

const parseEncryptedResponse = (response: string): Either<string, EncryptedResponse> => {
  if (!BASE64URL.test(response)) return left('the Annex C response is not base64url');
  const decoded = decodeCbor(Buffer.from(response, 'base64url'));
  if (isLeft(decoded)) return left(`the Annex C response ${decoded.left}`);
  const value = decoded.right;
  if (!Array.isArray(value) || value.length !== 2) return left('the Annex C response is not an EncryptedResponse ["dcapi", {enc, cipherText}]');
  const [type, parameters] = value as unknown[];
  if (type !== DCAPI) return left(`the Annex C response is of type ${JSON.stringify(type)}, not "dcapi"`);
  if (!isMap(parameters)) return left('the Annex C response has no {enc, cipherText} map');
  const enc = parameters.get('enc');
  const cipherText = parameters.get('cipherText');
  if (!isBytes(enc) || !isBytes(cipherText)) return left('the Annex C response lacks enc or cipherText as byte strings');
  return right({ enc, cipherText });
};

/**
 * The DeviceResponse (decoded CBOR) inside an Annex C answer's `response`, opened with the
 * recipient's private key and the SessionTranscript of `handover` as HPKE info, or why not.
 */
export const openEncryptedResponse = async (response: string, recipientPrivateKey: JWK, handover: AnnexCHandoverInfo): Promise<Either<string, unknown>> => {
  const parsed = parseEncryptedResponse(response);
  if (isLeft(parsed)) return parsed;
  const plaintext = await hpkeOpen(recipientPrivateKey, parsed.right.enc, parsed.right.cipherText, sessionTranscriptBytes(handover));
  if (plaintext === undefined) return left('the Annex C response does not open with the request key and this origin\'s SessionTranscript');
  const decoded = decodeCbor(plaintext);
  return isLeft(decoded) ? left(`the decrypted DeviceResponse ${decoded.left}`) : right(decoded.right);
};

/** One document of an Annex C DeviceResponse, as the single-document DeviceResponse a `vp_token` entry holds. */
export interface DocumentPresentation {
  readonly docType: unknown;
  /** base64url `{"version", "documents": [document], "status": 0}`; every signed part is kept as received (byte strings and tag 24). */
  readonly presentation: string;
}

/** The DeviceResponse's documents, each on its own, for the same checks as an OpenID4VP `mso_mdoc` presentation. */
export const documentPresentations = (deviceResponse: unknown): Either<string, readonly DocumentPresentation[]> => {
  const documents = deviceResponseDocuments(deviceResponse);
  if (isLeft(documents)) return documents;
  const version = (deviceResponse as Map<unknown, unknown>).get('version');
  return right(
    documents.right.map((document) => ({
      docType: document.get('docType'),
      presentation: base64url(encodeCbor(new Map<string, unknown>([['version', version], ['documents', [document]], ['status', 0]]))),
    })),
  );
};
