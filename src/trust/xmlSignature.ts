// XML trusted lists (ETSI TS 119 612) from bytes to a DOM whose enveloped XAdES signature was made
// by a pinned certificate. Canonicalisation and signature checks are xmldsigjs's; this module
// decides what is admitted to them and what counts as verified:
// - a DOCTYPE or entity declaration is refused before parsing (the parser would accept it, and a
//   DOCTYPE added after signing leaves the signature valid, so the signature check cannot catch it);
// - exactly one ds:Signature, a child of the root, with a reference covering the whole document
//   (`URI=""` or the root's unique `Id`), so no unsigned part can carry content;
// - the key is the pinned certificate's, never one the document offers in `ds:KeyInfo`: a valid
//   signature by the KeyInfo certificate proves integrity only, and KeyInfo may carry several keys;
// - a check that throws (a reference digest that does not match) and one that answers false are
//   both a failure.
import type { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import { Crypto } from '@peculiar/webcrypto';
import { DOMParser, onErrorStopParsing, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { setNodeDependencies } from 'xml-core';
import { Application, SignedXml } from 'xmldsigjs';
import { x509 } from '../crypto/x509.js';

const DS = 'http://www.w3.org/2000/09/xmldsig#';

// Node's WebCrypto has no brainpool curves, which real lists are signed with; this engine has.
// xmldsigjs and xml-core look their DOM, XPath and crypto up in these registries.
// xpath is loaded without its type declarations, which would pull the DOM library into every
// file's globals.
const xpath: unknown = createRequire(import.meta.url)('xpath');
const engine = new Crypto();
Application.setEngine('@peculiar/webcrypto', engine);
setNodeDependencies({ DOMParser, XMLSerializer, xpath });

// SHA-1 signatures are refused: they no longer protect a list from a chosen-prefix forgery.
const SIGNATURE_METHODS = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512',
]);

/** UTF-8 text of an XML document, or why it is refused before any parser sees it. */
export const xmlText = (bytes: Uint8Array): Either<string, string> => {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return left('is not UTF-8');
  }
  text = text.replace(/^\uFEFF/, '');
  if (/<!DOCTYPE/i.test(text)) return left('carries a DOCTYPE declaration');
  if (/<!ENTITY/i.test(text)) return left('carries an entity declaration');
  return right(text);
};

export const parseXml = (text: string): Either<string, Document> => {
  try {
    const document = new DOMParser({ onError: onErrorStopParsing }).parseFromString(text, 'application/xml');
    return document.documentElement ? right(document) : left('is not an XML document');
  } catch (err) {
    return left(`is not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
};

const elementChildren = (element: Element): Element[] => {
  const out: Element[] = [];
  for (let node = element.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) out.push(node as Element);
  }
  return out;
};

const countIds = (element: Element, id: string): number =>
  (element.getAttribute('Id') === id ? 1 : 0) + elementChildren(element).reduce((n, child) => n + countIds(child, id), 0);

/** The enveloped signature, or why the document has none we accept. */
const envelopedSignature = (document: Document): Either<string, Element> => {
  const root = document.documentElement!;
  const signatures = document.getElementsByTagNameNS(DS, 'Signature');
  if (signatures.length === 0) return left('is not signed');
  if (signatures.length > 1) return left('carries more than one signature');
  const signature = signatures.item(0)!;
  if (signature.parentNode !== root) return left('signature is not enveloped in the list element');
  const method = signature.getElementsByTagNameNS(DS, 'SignatureMethod').item(0)?.getAttribute('Algorithm') ?? '';
  if (!SIGNATURE_METHODS.has(method)) return left(`signature method ${method || '(none)'} is not accepted`);
  const rootId = root.getAttribute('Id');
  const references = Array.from(signature.getElementsByTagNameNS(DS, 'Reference'));
  const whole = references.some((reference) => {
    const uri = reference.getAttribute('URI');
    return uri === '' || (rootId !== null && rootId !== '' && uri === `#${rootId}` && countIds(root, rootId) === 1);
  });
  return whole ? right(signature) : left('signature does not cover the whole document');
};

const importVerifyKey = async (certificate: x509.X509Certificate, signatureAlgorithm: webcrypto.Algorithm): Promise<{ key: webcrypto.CryptoKey; algorithm: webcrypto.Algorithm }> => {
  const publicKey = certificate.publicKey;
  const algorithm = signatureAlgorithm.name === 'ECDSA'
    ? { ...signatureAlgorithm, namedCurve: (publicKey.algorithm as webcrypto.EcKeyAlgorithm).namedCurve }
    : signatureAlgorithm;
  const key = await engine.subtle.importKey('spki', publicKey.rawData, algorithm, true, ['verify']);
  return { key, algorithm };
};

/** Whether `certificate` made the signature; the document's own KeyInfo is never consulted. */
const signedBy = async (document: Document, signature: Element, certificate: x509.X509Certificate): Promise<Either<string, true>> => {
  const signed = new SignedXml(document as never);
  try {
    signed.LoadXml(signature as never);
    // xmldsigjs re-imports the key with the SignatureMethod's algorithm, which names the hash
    // but not the curve: an ECDSA key needs the curve added.
    const { key, algorithm } = await importVerifyKey(certificate, signed.Algorithm as webcrypto.Algorithm);
    signed.Algorithm = algorithm;
    return (await signed.Verify(key)) ? right(true) : left('signature value does not verify');
  } catch (err) {
    return left(`signature does not verify (${(err as Error).message})`);
  }
};

const der = (certificate: x509.X509Certificate): Buffer => Buffer.from(certificate.rawData);

/** The certificates in `ds:KeyInfo`, to try the matching pinned one first. */
const keyInfoCertificates = (signature: Element): Buffer[] =>
  Array.from(signature.getElementsByTagNameNS(DS, 'X509Certificate')).map((e) => Buffer.from((e.textContent ?? '').replace(/\s+/g, ''), 'base64'));

/**
 * Verifies the document's enveloped signature with each pinned certificate until one made it;
 * returns that certificate. Pinned certificates that cannot be parsed are skipped.
 */
export const verifyEnvelopedSignature = async (
  document: Document,
  pinned: readonly Uint8Array[],
): Promise<Either<string, x509.X509Certificate>> => {
  const signature = envelopedSignature(document);
  if (signature._tag === 'Left') return signature;
  const offered = keyInfoCertificates(signature.right);
  const candidates = pinned
    .flatMap((bytes) => {
      try {
        return [new x509.X509Certificate(bytes)];
      } catch {
        return [];
      }
    })
    .sort((a, b) => Number(offered.some((o) => o.equals(der(b)))) - Number(offered.some((o) => o.equals(der(a)))));
  if (candidates.length === 0) return left('no pinned signing certificate to verify it with');
  let first: string | undefined;
  for (const certificate of candidates) {
    const verified = await signedBy(document, signature.right, certificate);
    if (verified._tag === 'Right') return right(certificate);
    first ??= verified.left;
  }
  return left(candidates.length === 1 ? first! : `${first!}, with any of the ${candidates.length} pinned certificates`);
};
