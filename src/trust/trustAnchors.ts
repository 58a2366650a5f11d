// Static trust anchors (X509_TRUST_ANCHORS) for issuer chains, used when X509_VERIFY_TRUST_ANCHOR
// is true. Anchors are parsed when the configuration is read, so a bad one stops the process at
// start instead of failing every verification later.
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { x509 } from '../crypto/x509.js';
import { certificateFromBase64 } from './x509Chain.js';

const entriesOf = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

/** Comma-separated base64 DER certificates; whitespace around entries is ignored. */
export const TrustAnchorsFromString = new t.Type<readonly string[], string, unknown>(
  'TrustAnchorsFromString',
  (u): u is readonly string[] => Array.isArray(u) && u.every((s) => typeof s === 'string'),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected comma-separated base64 DER certificates');
    const entries = entriesOf(u);
    const bad = entries.findIndex((s) => isLeft(certificateFromBase64(s)));
    if (bad >= 0) return t.failure(u, c, `entry ${bad + 1} is not a base64 DER X.509 certificate`);
    return t.success(entries);
  },
  (a) => a.join(','),
);

/** Parsed anchors, ready for chain validation (the configuration already validated each). */
export const trustAnchorCertificates = (anchors: readonly string[]): readonly x509.X509Certificate[] =>
  anchors.flatMap((der) => {
    const certificate = certificateFromBase64(der);
    return isLeft(certificate) ? [] : [certificate.right];
  });
