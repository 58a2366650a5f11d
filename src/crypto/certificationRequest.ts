// PKCS#10 certification requests (RFC 2986) signed by an EcSigner, wherever its key is (in memory
// or in a PKCS#11 token): @peculiar/x509 builds the request and asks its crypto provider to sign;
// the provider given here signs with the signer instead, so the key never has to be a CryptoKey.
import { webcrypto } from 'node:crypto';
import type { EcSigner } from './signer.js';
import { distinguishedName, EC_P256, ECDSA_SHA256, type CryptoKey, type SubjectAltName } from './certificates.js';
import { x509 } from './x509.js';

/** The signer's public key as a WebCrypto key (for certificates and requests made for it). */
export const publicCryptoKey = (signer: EcSigner): Promise<CryptoKey> => webcrypto.subtle.importKey('jwk', signer.publicJwk, EC_P256, true, ['verify']);

/** A PEM CSR for the signer's key, subject `C=<country>, CN=<commonName>`, asking for `subjectAltNames` (digitalSignature). */
export const certificationRequest = async (
  signer: EcSigner,
  subject: { readonly commonName: string; readonly country?: string },
  subjectAltNames: readonly SubjectAltName[],
): Promise<string> => {
  const publicKey = await publicCryptoKey(signer);
  // Only what the generator calls: the public key's SPKI, and a signature over the request info.
  const crypto = {
    subtle: {
      exportKey: (format: 'spki', key: CryptoKey) => webcrypto.subtle.exportKey(format, key),
      sign: async (_algorithm: unknown, _key: unknown, data: ArrayBuffer) => {
        const signature = await signer.sign(new Uint8Array(data));
        return signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength);
      },
    },
  } as unknown as webcrypto.Crypto;
  const request = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: distinguishedName(subject),
      keys: { publicKey, privateKey: { algorithm: EC_P256, type: 'private', extractable: false, usages: ['sign'] } as CryptoKey },
      signingAlgorithm: ECDSA_SHA256,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        ...(subjectAltNames.length > 0 ? [new x509.SubjectAlternativeNameExtension(subjectAltNames.map((n) => ({ type: n.type, value: n.value })))] : []),
      ],
    },
    crypto,
  );
  return request.toString('pem') + '\n';
};
