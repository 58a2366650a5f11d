// Static trust anchors (X509_TRUST_ANCHORS) and the switch that turns anchoring and CRL checks on
// (X509_VERIFY_TRUST_ANCHOR). Anchors are parsed when the configuration is read, so a bad one stops
// the process at start instead of failing every verification later.
import * as t from 'io-ts';
import { x509 } from '../crypto/x509.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const parsesAsCertificate = (der: string): boolean => {
  if (!BASE64.test(der)) return false;
  try {
    new x509.X509Certificate(Buffer.from(der, 'base64'));
    return true;
  } catch {
    return false;
  }
};

/** Comma-separated base64 DER certificates; whitespace around entries is ignored. */
export const TrustAnchorsFromString = new t.Type<readonly string[], string, unknown>(
  'TrustAnchorsFromString',
  (u): u is readonly string[] => Array.isArray(u) && u.every((s) => typeof s === 'string'),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected comma-separated base64 DER certificates');
    const entries = u.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const bad = entries.findIndex((s) => !parsesAsCertificate(s));
    if (bad >= 0) return t.failure(u, c, `entry ${bad + 1} is not a base64 DER X.509 certificate`);
    return t.success(entries);
  },
  (a) => a.join(','),
);

/** Parsed anchors, ready for chain validation. */
export const trustAnchorCertificates = (anchors: readonly string[]): readonly x509.X509Certificate[] =>
  anchors.map((der) => new x509.X509Certificate(Buffer.from(der, 'base64')));
