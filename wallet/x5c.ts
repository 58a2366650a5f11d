// The signer of a JWS that carries its certificate chain in `x5c`: the leaf, first in the chain.
import { X509Certificate } from 'node:crypto';

/** The leaf certificate of a protected header's `x5c`; throws when there is none. */
export const x5cLeaf = (header: Record<string, unknown>): X509Certificate => {
  const x5c = header['x5c'];
  if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') throw new Error('no x5c');
  return new X509Certificate(Buffer.from(x5c[0], 'base64'));
};
