// A fetched trusted list document checked and read: its signature by a pinned certificate first,
// its content only after. Whatever fails names the step, for the log line of the refresh.
// The signer must have been valid when the list was issued; the instant of the check plays no
// part, so a recorded list verifies the same way whenever it is read back.
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { parseLote, verifyLoteSignature } from './lote.js';
import { parseTrustedListXml } from './trustedListXml.js';
import type { x509 } from '../crypto/x509.js';
import type { ListFormat } from '../config/trust.js';
import type { TrustList } from './trustList.js';
import { parseXml, verifyEnvelopedSignature, xmlText } from './xmlSignature.js';

interface Signed {
  readonly list: TrustList;
  readonly signer: x509.X509Certificate;
}

const verifyXml = async (bytes: Uint8Array, pinned: readonly Uint8Array[]): Promise<Either<string, Signed>> => {
  const text = xmlText(bytes);
  if (text._tag === 'Left') return text;
  const document = parseXml(text.right);
  if (document._tag === 'Left') return document;
  const signer = await verifyEnvelopedSignature(document.right, pinned);
  if (signer._tag === 'Left') return signer;
  const list = parseTrustedListXml(document.right);
  return list._tag === 'Left' ? list : right({ list: list.right, signer: signer.right });
};

const verifyLote = async (bytes: Uint8Array, pinned: readonly Uint8Array[]): Promise<Either<string, Signed>> => {
  const signed = await verifyLoteSignature(bytes, pinned);
  if (signed._tag === 'Left') return signed;
  const list = parseLote(signed.right.payload);
  return list._tag === 'Left' ? list : right({ list: list.right, signer: signed.right.signer });
};

/** The list a document states, if one of `pinned` signed it while valid. */
export const verifyTrustList = async (bytes: Uint8Array, format: ListFormat, pinned: readonly Uint8Array[]): Promise<Either<string, TrustList>> => {
  const signed = format === 'lote' ? await verifyLote(bytes, pinned) : await verifyXml(bytes, pinned);
  if (signed._tag === 'Left') return signed;
  const { list, signer } = signed.right;
  if (list.issuedAt < signer.notBefore || list.issuedAt > signer.notAfter) {
    return left(`was issued ${list.issuedAt.toISOString()}, outside the validity of its signer ${signer.subject}`);
  }
  if (format === 'lotl' && list.pointers.length === 0) return left('is configured as a LoTL but points to no other list');
  return right(list);
};
