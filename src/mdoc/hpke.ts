// HPKE (RFC 9180) in base mode with the one suite ISO/IEC TS 18013-7 Annex C uses for the
// DeviceResponse: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM (0x0010, 0x0001, 0x0001),
// over @hpke/core (WebCrypto). Only the recipient's side: the connector opens what a wallet sealed.
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import type { JWK } from 'jose';

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

/**
 * The plaintext sealed to `recipientPrivateJwk` (a P-256 private JWK) with `info` and an empty
 * AAD, or undefined when it does not open (another key, another info, a changed byte, an `enc`
 * that is not a point on the curve).
 */
export const hpkeOpen = async (recipientPrivateJwk: JWK, enc: Uint8Array, cipherText: Uint8Array, info: Uint8Array): Promise<Uint8Array | undefined> => {
  const { kty, crv, x, y, d } = recipientPrivateJwk;
  try {
    const recipientKey = await suite.kem.importKey('jwk', { kty, crv, x, y, d }, false);
    return new Uint8Array(await suite.open({ recipientKey, enc, info }, cipherText));
  } catch {
    return undefined;
  }
};
