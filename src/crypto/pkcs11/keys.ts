// The connector's keys in a PKCS#11 token, found by label: EC P-256 key pairs for the signing
// roles (access, issuer) and an AES-256 secret key as the key-encryption key. Keys the connector
// makes are token objects, private, CKA_SENSITIVE and not CKA_EXTRACTABLE: they never leave the
// token. CKA_ID holds the role, so `ops keys list` can say which key serves what.
import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import type { EcSigner } from '../signer.js';
import type { Handle, Session, Token } from './token.js';

export type KeyRole = 'access' | 'issuer' | 'kek';
export const KEY_ROLES: readonly KeyRole[] = ['access', 'issuer', 'kek'];

// DER OID 1.2.840.10045.3.1.7 (prime256v1), the CKA_EC_PARAMS of a P-256 key.
const P256_PARAMS = Buffer.from('06082a8648ce3d030107', 'hex');

/** What a key is: its label, type and role (never material). */
export interface KeyDescription {
  readonly label: string;
  readonly type: 'ec-p256-private' | 'ec-p256-public' | 'ec-private' | 'ec-public' | 'aes-256' | 'aes' | 'other';
  readonly role: KeyRole | undefined;
}

const findAll = (token: Token, session: Session, template: { type: number; value: unknown }[]): Handle[] => {
  const { module } = token;
  module.C_FindObjectsInit(session.handle, template as never);
  try {
    return module.C_FindObjects(session.handle, 64);
  } finally {
    module.C_FindObjectsFinal(session.handle);
  }
};

/** The handle of the object with this label and class in the session, or undefined; cached per session. */
export const findKey = (token: Token, session: Session, label: string, objectClass: 'private' | 'public' | 'secret'): Handle | undefined => {
  const { pkcs11 } = token;
  const cacheKey = `${objectClass}/${label}`;
  const cached = session.objects.get(cacheKey);
  if (cached) return cached;
  const ckClass = { private: pkcs11.CKO_PRIVATE_KEY, public: pkcs11.CKO_PUBLIC_KEY, secret: pkcs11.CKO_SECRET_KEY }[objectClass];
  const [found] = findAll(token, session, [
    { type: pkcs11.CKA_CLASS, value: ckClass },
    { type: pkcs11.CKA_LABEL, value: label },
  ]);
  if (found) session.objects.set(cacheKey, found);
  return found;
};

/** The P-256 public JWK of the EC public key `label` (its CKA_EC_POINT, a DER OCTET STRING around the point). */
export const ecPublicJwk = (token: Token, session: Session, label: string): JWK | undefined => {
  const { pkcs11, module } = token;
  const handle = findKey(token, session, label, 'public');
  if (!handle) return undefined;
  const [params, point] = module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_EC_PARAMS }, { type: pkcs11.CKA_EC_POINT }]);
  if (!params?.value || !Buffer.from(params.value as Buffer).equals(P256_PARAMS)) return undefined;
  const der = Buffer.from(point?.value as Buffer);
  // 04 41 04 x y: the OCTET STRING (0x04, length 65) around the uncompressed point; some modules give the bare point.
  const raw = der.length === 67 && der[0] === 0x04 && der[1] === 0x41 ? der.subarray(2) : der;
  if (raw.length !== 65 || raw[0] !== 0x04) return undefined;
  return { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') };
};

/** What is wrong with the token's key of a role, or undefined when it is usable; one line. */
export const keyProblem = (token: Token, session: Session, role: KeyRole, label: string): string | undefined => {
  if (role === 'kek') {
    const handle = findKey(token, session, label, 'secret');
    if (!handle) return `no AES key labelled ${JSON.stringify(label)} in the token`;
    const { pkcs11, module } = token;
    const [type, length] = module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_KEY_TYPE }, { type: pkcs11.CKA_VALUE_LEN }]);
    const keyType = Buffer.from(type?.value as Buffer).readUInt32LE(0);
    const bytes = Buffer.from(length?.value as Buffer).readUInt32LE(0);
    if (keyType !== pkcs11.CKK_AES || bytes !== 32) return `the key labelled ${JSON.stringify(label)} is not an AES-256 key`;
    return undefined;
  }
  if (!findKey(token, session, label, 'private')) return `no private key labelled ${JSON.stringify(label)} in the token`;
  if (!ecPublicJwk(token, session, label)) return `no EC P-256 public key labelled ${JSON.stringify(label)} in the token (it gives the key's public half)`;
  return undefined;
};

/** An EcSigner whose signatures are made inside the token: CKM_ECDSA over the SHA-256 digest, raw r||s. */
export const tokenSigner = (token: Token, label: string, publicJwk: JWK): EcSigner => ({
  publicJwk,
  sign: (data) =>
    token.withSession(async (session) => {
      const key = findKey(token, session, label, 'private');
      if (!key) throw new Error(`no private key labelled ${label}`);
      token.module.C_SignInit(session.handle, { mechanism: token.pkcs11.CKM_ECDSA }, key);
      return token.module.C_SignAsync(session.handle, createHash('sha256').update(data).digest(), Buffer.alloc(64));
    }),
});

/** Every key of the token by label, type and role. */
export const listKeys = (token: Token, session: Session): KeyDescription[] => {
  const { pkcs11, module } = token;
  const keyClasses = new Map<number, 'private' | 'public' | 'secret'>([
    [pkcs11.CKO_PRIVATE_KEY, 'private'],
    [pkcs11.CKO_PUBLIC_KEY, 'public'],
    [pkcs11.CKO_SECRET_KEY, 'secret'],
  ]);
  return [...keyClasses].flatMap(([ckClass, kind]) =>
    findAll(token, session, [{ type: pkcs11.CKA_CLASS, value: ckClass }]).map((handle): KeyDescription => {
      const [label, id, keyType] = module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_LABEL }, { type: pkcs11.CKA_ID }, { type: pkcs11.CKA_KEY_TYPE }]);
      const name = Buffer.from((label?.value as Buffer | undefined) ?? Buffer.alloc(0)).toString('utf8');
      const idText = Buffer.from((id?.value as Buffer | undefined) ?? Buffer.alloc(0)).toString('utf8');
      const type = Buffer.from(keyType?.value as Buffer).readUInt32LE(0);
      const role = (KEY_ROLES as readonly string[]).includes(idText) ? (idText as KeyRole) : undefined;
      if (type === pkcs11.CKK_AES) {
        const [length] = module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_VALUE_LEN }]);
        return { label: name, type: Buffer.from(length?.value as Buffer).readUInt32LE(0) === 32 ? 'aes-256' : 'aes', role };
      }
      if (type === pkcs11.CKK_EC && kind !== 'secret') {
        const [params] = module.C_GetAttributeValue(session.handle, handle, [{ type: pkcs11.CKA_EC_PARAMS }]);
        const p256 = Buffer.from(params?.value as Buffer).equals(P256_PARAMS);
        return { label: name, type: kind === 'private' ? (p256 ? 'ec-p256-private' : 'ec-private') : p256 ? 'ec-p256-public' : 'ec-public', role };
      }
      return { label: name, type: 'other', role };
    }),
  );
};

/** Whether any object of the token carries this label. */
export const labelTaken = (token: Token, session: Session, label: string): boolean =>
  findAll(token, session, [{ type: token.pkcs11.CKA_LABEL, value: label }]).length > 0;

/**
 * Makes the key of a role in the token: P-256 key pair for access and issuer, AES-256 for the KEK;
 * private parts sensitive and not extractable. The caller has checked the label is free.
 */
export const generateKey = (token: Token, session: Session, role: KeyRole, label: string): void => {
  const { pkcs11, module } = token;
  const common = [
    { type: pkcs11.CKA_TOKEN, value: true },
    { type: pkcs11.CKA_LABEL, value: label },
    { type: pkcs11.CKA_ID, value: Buffer.from(role, 'utf8') },
  ];
  const secret = [
    { type: pkcs11.CKA_PRIVATE, value: true },
    { type: pkcs11.CKA_SENSITIVE, value: true },
    { type: pkcs11.CKA_EXTRACTABLE, value: false },
  ];
  if (role === 'kek') {
    module.C_GenerateKey(session.handle, { mechanism: pkcs11.CKM_AES_KEY_GEN }, [
      ...common,
      ...secret,
      { type: pkcs11.CKA_VALUE_LEN, value: 32 },
      { type: pkcs11.CKA_ENCRYPT, value: true },
      { type: pkcs11.CKA_DECRYPT, value: true },
      // CKM_AES_CMAC: the derivation root (src/crypto/pkcs11/kek.ts).
      { type: pkcs11.CKA_SIGN, value: true },
    ]);
    return;
  }
  module.C_GenerateKeyPair(
    session.handle,
    { mechanism: pkcs11.CKM_EC_KEY_PAIR_GEN },
    [...common, { type: pkcs11.CKA_EC_PARAMS, value: P256_PARAMS }, { type: pkcs11.CKA_VERIFY, value: true }],
    [...common, ...secret, { type: pkcs11.CKA_SIGN, value: true }],
  );
};
