// Static trust anchors (X509_TRUST_ANCHORS, checked by src/config/trust.ts) for issuer chains,
// used when X509_VERIFY_TRUST_ANCHOR is true.
import { isLeft } from 'fp-ts/lib/Either.js';
import { certificateFromBase64, type x509 } from '../crypto/x509.js';

/** Parsed anchors, ready for chain validation (the configuration already validated each). */
export const trustAnchorCertificates = (anchors: readonly string[]): readonly x509.X509Certificate[] =>
  anchors.flatMap((der) => {
    const certificate = certificateFromBase64(der);
    return isLeft(certificate) ? [] : [certificate.right];
  });
