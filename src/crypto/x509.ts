// The one way to import @peculiar/x509 in this code base: its dependency injection needs the
// Reflect metadata API installed before it loads, and a WebCrypto provider (Node's) set once.
// It also parses a base64 certificate for both the configuration (X509_TRUST_ANCHORS) and the
// trust feature (`x5c`), so the two accept the same text and share one cache.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';

x509.cryptoProvider.set(webcrypto);

export { x509 };

// Parsing a certificate costs more than verifying its signature, and the same issuer chains
// come back with every presentation; parsed certificates are immutable, so they are kept.
const PARSED_LIMIT = 256;
const parsed = new Map<string, x509.X509Certificate>();

/** A base64 (not base64url) DER certificate, as in `x5c` and X509_TRUST_ANCHORS, or why not. */
export const certificateFromBase64 = (text: unknown): Either<string, x509.X509Certificate> => {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return left('is not base64');
  const known = parsed.get(text);
  if (known) return right(known);
  let certificate: x509.X509Certificate;
  try {
    certificate = new x509.X509Certificate(Buffer.from(text, 'base64'));
  } catch {
    return left('is not a DER X.509 certificate');
  }
  if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value ?? '');
  parsed.set(text, certificate);
  return right(certificate);
};
