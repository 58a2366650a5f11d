// The compact JWS (RFC 7515, 7.1) of the connector's signing roles, ES256 over an EcSigner: built
// here rather than by jose, which signs only with keys it holds, and a PKCS#11 token's key never
// leaves the token. The protected header gets `alg: ES256` first.
import type { EcSigner } from './signer.js';

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** `header.payload.signature`, each part base64url (no padding). */
export const signCompactJws = async (signer: EcSigner, header: { readonly [name: string]: unknown }, payload: { readonly [name: string]: unknown }): Promise<string> => {
  const signingInput = `${base64url({ alg: 'ES256', ...header })}.${base64url(payload)}`;
  const signature = await signer.sign(Buffer.from(signingInput, 'ascii'));
  return `${signingInput}.${Buffer.from(signature).toString('base64url')}`;
};
