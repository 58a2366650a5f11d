// The key-encryption key in the token: data keys are wrapped and unwrapped inside it with
// CKM_AES_GCM (96-bit IV from the connector's CSPRNG, 128-bit tag, the owner as associated data),
// which gives the same `Sealed` form as the file KEK, so the data key events do not change shape.
// The KEK never leaves the token.
//
// The secrets the connector derives with HKDF (tenant DID keys, callback secrets, blob upload and
// OID4VCI secrets; src/featureContract.ts `kek`) need input key material: with a token it is
// AES-CMAC (CKM_AES_CMAC) under the KEK of two fixed labels, computed at start and held in memory
// only, never written anywhere.
import { randomBytes } from 'node:crypto';
import type { Kek } from '../kek.js';
import { KEY_BYTES } from '../seal.js';
import { findKey } from './keys.js';
import type { Session, Token } from './token.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

const gcm = (token: Token, iv: Buffer, aad: string) => ({
  mechanism: token.pkcs11.CKM_AES_GCM,
  parameter: { type: token.pkcs11.CK_PARAMS_AES_GCM, iv, aad: Buffer.from(aad, 'utf8'), ivBits: IV_BYTES * 8, tagBits: TAG_BYTES * 8 },
});

const kekHandle = (token: Token, session: Session, label: string) => {
  const key = findKey(token, session, label, 'secret');
  if (!key) throw new Error(`no AES key labelled ${label}`);
  return key;
};

export const tokenKek = (token: Token, label: string): Kek => ({
  wrap: (dataKey, aad) =>
    token.withSession(async (session) => {
      const iv = randomBytes(IV_BYTES);
      token.module.C_EncryptInit(session.handle, gcm(token, iv, aad), kekHandle(token, session, label));
      const out = await token.module.C_EncryptAsync(session.handle, dataKey, Buffer.alloc(dataKey.length + TAG_BYTES));
      return {
        alg: 'A256GCM',
        iv: iv.toString('base64url'),
        ciphertext: out.subarray(0, out.length - TAG_BYTES).toString('base64url'),
        tag: out.subarray(out.length - TAG_BYTES).toString('base64url'),
      };
    }),
  unwrap: (wrapped, aad) =>
    token.withSession(async (session) => {
      const input = Buffer.concat([Buffer.from(wrapped.ciphertext, 'base64url'), Buffer.from(wrapped.tag, 'base64url')]);
      token.module.C_DecryptInit(session.handle, gcm(token, Buffer.from(wrapped.iv, 'base64url'), aad), kekHandle(token, session, label));
      return Buffer.from(await token.module.C_DecryptAsync(session.handle, input, Buffer.alloc(input.length)));
    }),
});

/** The HKDF input key material derived in the token from the KEK (see the top of this file). */
export const derivationRoot = (token: Token, label: string): Promise<Buffer> =>
  token.withSession(async (session) => {
    const key = kekHandle(token, session, label);
    const block = (n: number): Buffer => {
      token.module.C_SignInit(session.handle, { mechanism: token.pkcs11.CKM_AES_CMAC }, key);
      return token.module.C_Sign(session.handle, Buffer.from(`eudi-connector derivation root ${n}`, 'utf8'), Buffer.alloc(16));
    };
    const root = Buffer.concat([block(1), block(2)]);
    if (root.length !== KEY_BYTES) throw new Error('AES-CMAC gave an unexpected length');
    return root;
  });
