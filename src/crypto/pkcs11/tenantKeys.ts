// Tenants' own signing keys in the PKCS#11 token (src/crypto/tenantKeys.ts): each made inside the
// token as a P-256 key pair, private, CKA_SENSITIVE and not CKA_EXTRACTABLE (pkcs11/keys.ts
// `generateKey`), under a label derived from the tenant and the key id; the events record the
// label. Keys of the file store's making (recorded sealed) still open here: their data keys are
// wrapped by whichever KEK the deployment has.
import { sealedTenantKeys, publicJwkOf, type TenantKeyStore } from '../tenantKeys.js';
import { ecPublicJwk, findKey, generateKey, labelTaken, tokenSigner } from './keys.js';
import type { Token } from './token.js';

/** The token label of a tenant's key: `tenant-<tenant id>-<key id>`. */
export const tenantKeyLabel = (tenantId: string, keyId: string): string => `tenant-${tenantId}-${keyId}`;

export const tokenTenantKeys = (token: Token): TenantKeyStore => ({
  async generate({ tenantId, keyId, role }) {
    const label = tenantKeyLabel(tenantId, keyId);
    const publicJwk = await token.withSession(async (session) => {
      if (labelTaken(token, session, label)) throw new Error(`the token already holds an object labelled ${label}`);
      generateKey(token, session, role, label);
      return ecPublicJwk(token, session, label);
    });
    if (!publicJwk) throw new Error(`the token made no P-256 public key labelled ${label}`);
    const signer = tokenSigner(token, label, publicJwk);
    return { signer, publicJwk: publicJwkOf(signer), material: { store: 'pkcs11', label } };
  },
  async open(keyId, material, publicJwk, dataKeys) {
    if (material.store === 'file') return sealedTenantKeys.open(keyId, material, publicJwk, dataKeys);
    const found = await token.withSession(async (session) => findKey(token, session, material.label, 'private') !== undefined);
    return found ? tokenSigner(token, material.label, publicJwk) : undefined;
  },
  async destroy(keyId, where, dataKeys) {
    if (where.store === 'file') return sealedTenantKeys.destroy(keyId, where, dataKeys);
    const { label } = where;
    await token.withSession(async (session) => {
      for (const objectClass of ['private', 'public'] as const) {
        const handle = findKey(token, session, label, objectClass);
        if (!handle) continue;
        token.module.C_DestroyObject(session.handle, handle);
        session.objects.delete(`${objectClass}/${label}`);
      }
    });
  },
});
