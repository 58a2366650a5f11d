// The crypto context that the independent mdoc library (@owf/mdoc 0.6) asks of its user, over
// node:crypto and @peculiar/x509. Tests use the library as an independent issuer, holder and
// verifier; MAC device authentication is never exercised through it (OpenID4VP has no reader key).
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type JsonWebKey } from 'node:crypto';
import { CoseKey, type MdocContext } from '@owf/mdoc';
import { x509 } from '../../src/crypto/x509.js';

const publicJwk = (key: CoseKey): JsonWebKey => {
  const { kty, crv, x, y } = key.jwk as Record<string, string>;
  return { kty, crv, x, y };
};

export const owfMdocContext: MdocContext = {
  crypto: {
    random: (length) => new Uint8Array(randomBytes(length)),
    digest: ({ digestAlgorithm, bytes }) => new Uint8Array(createHash(digestAlgorithm.replace('-', '').toLowerCase()).update(bytes).digest()),
    calculateEphemeralMacKey: () => {
      throw new Error('MAC keys are not used with OpenID4VP');
    },
  },
  cose: {
    sign1: {
      sign: ({ toBeSigned, key }) =>
        new Uint8Array(sign('sha256', toBeSigned, { key: createPrivateKey({ key: key.jwk as JsonWebKey, format: 'jwk' }), dsaEncoding: 'ieee-p1363' })),
      verify: ({ sign1, key }) =>
        verify('sha256', sign1.toBeSigned, { key: createPublicKey({ key: publicJwk(key), format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, sign1.signature),
    },
    mac0: {
      sign: () => {
        throw new Error('MAC is not used with OpenID4VP');
      },
      verify: () => false,
    },
  },
  x509: {
    getIssuerNameField: ({ certificate, field }) => new x509.X509Certificate(certificate).issuerName.getField(field),
    getPublicKey: async ({ certificate }) => {
      const key = createPublicKey({ key: Buffer.from(new x509.X509Certificate(certificate).publicKey.rawData), format: 'der', type: 'spki' });
      return CoseKey.fromJwk(key.export({ format: 'jwk' }) as Record<string, unknown>);
    },
    // The leaf must be a trusted certificate or be signed by one: enough for a library used as a cross-check.
    verifyCertificateChain: async ({ trustedCertificates, x5chain, now }) => {
      const [leafDer] = x5chain;
      if (!leafDer) throw new Error('empty x5chain');
      const leaf = new x509.X509Certificate(leafDer);
      const at = now ?? new Date();
      if (at < leaf.notBefore || at > leaf.notAfter) throw new Error('leaf certificate not valid now');
      for (const der of trustedCertificates) {
        const trusted = new x509.X509Certificate(der);
        if (Buffer.from(leaf.rawData).equals(Buffer.from(trusted.rawData))) return;
        if (leaf.issuer === trusted.subject && (await leaf.verify({ publicKey: trusted, signatureOnly: true }))) return;
      }
      throw new Error('leaf certificate is not issued by a trusted certificate');
    },
    getCertificateData: async ({ certificate }) => {
      const parsed = new x509.X509Certificate(certificate);
      return {
        issuerName: parsed.issuer,
        subjectName: parsed.subject,
        serialNumber: parsed.serialNumber,
        thumbprint: Buffer.from(await parsed.getThumbprint('SHA-256')).toString('hex'),
        notBefore: parsed.notBefore,
        notAfter: parsed.notAfter,
        pem: parsed.toString('pem'),
      };
    },
  },
};
