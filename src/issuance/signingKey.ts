// The Issuer Signing Certificate's key, as every issuance signature uses it: the credentials of
// each format (src/issuance/formats/) and the Status List Tokens (src/issuance/status/).
import type { EcSigner } from '../crypto/signer.js';

/** The Issuer Signing Certificate's signer and its chain (base64 DER, leaf first). */
export interface IssuerSigningKey {
  readonly signer: EcSigner;
  readonly x5c: readonly string[];
}

/** The key as COSE signs with it: the signer and the chain as `x5chain` DER. */
export const coseSignerOf = (key: IssuerSigningKey): { readonly signer: EcSigner; readonly x5chain: Uint8Array[] } => ({
  signer: key.signer,
  x5chain: key.x5c.map((der) => new Uint8Array(Buffer.from(der, 'base64'))),
});
