// Authenticated encryption of JSON values with AES-256-GCM. The associated data binds a sealed
// value to where it belongs (an owner id, a field name), so it cannot be moved elsewhere.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Sealed } from '../../streams/dataKey.js';

export const KEY_BYTES = 32;

export const seal = (key: Buffer, plaintext: Buffer, aad: string): Sealed => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    alg: 'A256GCM',
    iv: iv.toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
  };
};

/** Throws when the key, the associated data or the sealed value is not the one sealed. */
export const open = (key: Buffer, sealed: Sealed, aad: string): Buffer => {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]);
};
