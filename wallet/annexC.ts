// The holder's side of ISO/IEC 18013-7 Annex C over the Digital Credentials API (`org-iso-mdoc`,
// the form Safari passes on), as the open implementations build it: the request `data` is
// `{deviceRequest, encryptionInfo}`, each base64url CBOR, with
// `EncryptionInfo = ["dcapi", {nonce, recipientPublicKey: COSE_Key}]`; the wallet answers each
// DocRequest's ItemsRequest from its store with a DeviceResponse device-signed over
// `SessionTranscript = [null, null, ["dcapi", sha-256(CBOR([<encryptionInfo as received>, origin]))]]`
// and HPKE-seals it to recipientPublicKey (RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256),
// HKDF-SHA256, AES-128-GCM, info the SessionTranscript's CBOR, empty aad). The answer `data` is
// `{response: base64url(CBOR(["dcapi", {enc, cipherText}]))}`. ReaderAuth, when present, is not
// checked: the simulator shows every verifier the same.
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { isLeft } from 'fp-ts/lib/Either.js';
import { decodeCbor, embeddedBytes, encodeCbor, isMap } from '../src/mdoc/cbor.js';
import { coseKeyToJwk } from '../src/mdoc/cose.js';
import { sessionTranscript } from '../src/mdoc/sessionTranscript.js';
import type { DcApiWallet } from './dcApiWallet.js';
import { heldOf, select } from './dcql.js';
import { deviceResponseBytes, mdocDocument, readIssuerSigned } from './mdoc.js';
import type { CredentialQuery } from './presentation.js';

/** The HPKE suite Annex C names. */
export const annexCSuite = (): CipherSuite => new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

const decodeBase64urlCbor = (value: unknown, name: string): unknown => {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value)) throw new Error(`org-iso-mdoc: ${name} is not base64url`);
  const decoded = decodeCbor(Buffer.from(value, 'base64url'));
  if (isLeft(decoded)) throw new Error(`org-iso-mdoc: ${name} ${decoded.left}`);
  return decoded.right;
};

/** The ItemsRequests of a DeviceRequest, as credential queries the wallet's DCQL selection answers (one per DocRequest, in order). */
const itemsRequested = (deviceRequest: unknown): CredentialQuery[] => {
  const docRequests = isMap(deviceRequest) ? deviceRequest.get('docRequests') : undefined;
  if (!Array.isArray(docRequests) || docRequests.length === 0) throw new Error('org-iso-mdoc: the DeviceRequest has no docRequests');
  return docRequests.map((docRequest: unknown, index) => {
    const embedded = isMap(docRequest) ? embeddedBytes(docRequest.get('itemsRequest')) : undefined;
    const items = embedded === undefined ? undefined : decodeCbor(embedded);
    const itemsRequest = items === undefined || isLeft(items) ? undefined : items.right;
    const docType = isMap(itemsRequest) ? itemsRequest.get('docType') : undefined;
    const nameSpaces = isMap(itemsRequest) ? itemsRequest.get('nameSpaces') : undefined;
    if (typeof docType !== 'string' || !isMap(nameSpaces)) throw new Error(`org-iso-mdoc: docRequest ${index + 1} has no ItemsRequest with docType and nameSpaces`);
    const claims = [...nameSpaces].flatMap(([namespace, elements]) => (isMap(elements) ? [...elements.keys()].map((element) => ({ path: [String(namespace), String(element)] })) : []));
    return { id: `docRequest ${index + 1}`, format: 'mso_mdoc', meta: { doctype_value: docType }, claims };
  });
};

/** The recipient key of an `EncryptionInfo = ["dcapi", {nonce, recipientPublicKey}]`, as a JWK. */
const recipientKeyOf = (encryptionInfo: unknown) => {
  const parameters = Array.isArray(encryptionInfo) && encryptionInfo.length === 2 && encryptionInfo[0] === 'dcapi' ? encryptionInfo[1] : undefined;
  if (!isMap(parameters) || !(parameters.get('nonce') instanceof Uint8Array)) throw new Error('org-iso-mdoc: encryptionInfo is not ["dcapi", {nonce, recipientPublicKey}]');
  const jwk = coseKeyToJwk(parameters.get('recipientPublicKey'));
  if (isLeft(jwk)) throw new Error(`org-iso-mdoc: recipientPublicKey ${jwk.left}`);
  return jwk.right;
};

/** The Annex C answer's `data`: the sealed DeviceResponse. */
export const answerAnnexC = async (data: unknown, wallet: DcApiWallet): Promise<{ response: string }> => {
  const say = wallet.say ?? (() => undefined);
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const recipient = recipientKeyOf(decodeBase64urlCbor(fields['encryptionInfo'], 'encryptionInfo'));
  const queries = itemsRequested(decodeBase64urlCbor(fields['deviceRequest'], 'deviceRequest'));
  const { held, heldMdocs } = heldOf(wallet.credentials);
  const { mdocs, missing } = select({ credentialQueries: queries }, held, { keys: { privateKey: wallet.holderKey.privateKey } }, heldMdocs);
  if (missing.length > 0) throw new Error(`cannot answer this DeviceRequest: ${missing.join('; ')}`);
  const transcript = sessionTranscript({ encryptionInfo: fields['encryptionInfo'] as string, origin: wallet.bend?.handoverOrigin ?? wallet.origin });
  const documents = queries.map((query) => {
    const { mdoc, disclose } = mdocs[query.id]!;
    say(`${query.id}: an mdoc ${mdoc.doctype}, disclosing ${disclose.map(([ns, element]) => `${ns}/${element}`).join(', ')}; device-signed over the dcapi SessionTranscript (encryptionInfo, origin)`);
    return mdocDocument(readIssuerSigned(mdoc.credential), { docType: mdoc.doctype, disclose, deviceKey: wallet.holderKey.privateKey }, transcript);
  });
  const suite = annexCSuite();
  const to = wallet.bend?.encryptTo ?? recipient;
  const recipientPublicKey = await suite.kem.importKey('jwk', { kty: 'EC', crv: 'P-256', x: to.x!, y: to.y! }, true);
  const sealed = await suite.seal({ recipientPublicKey, info: encodeCbor(transcript) }, deviceResponseBytes(documents));
  say('DeviceResponse sealed to recipientPublicKey: HPKE base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, info the SessionTranscript');
  const encryptedResponse = ['dcapi', new Map<string, Uint8Array>([['enc', new Uint8Array(sealed.enc)], ['cipherText', new Uint8Array(sealed.ct)]])];
  return { response: Buffer.from(encodeCbor(encryptedResponse)).toString('base64url') };
};
