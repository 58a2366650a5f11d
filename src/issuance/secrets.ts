// Keys for the MACs that let the issuance flow hand out values without recording them: the
// pre-authorized code, the c_nonce, the issuer_state, the DPoP nonce, and the keyed hash of a
// transaction code. Each is derived
// (HKDF) from the key-encryption key, which lives outside the event store and is shared by every
// instance; so a value made by one instance checks on another, and a copy of the store alone
// cannot brute-force a 6-digit transaction code from its hash.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export interface IssuanceSecrets {
  /** base64url HMAC-SHA-256 of `text` under the key for `purpose`. */
  readonly mac: (purpose: MacPurpose, text: string) => string;
  readonly verify: (purpose: MacPurpose, text: string, mac: string) => boolean;
}

export type MacPurpose = 'pre-authorized_code' | 'c_nonce' | 'tx_code' | 'issuer_state' | 'dpop_nonce';

export const issuanceSecrets = (kek: Buffer): IssuanceSecrets => {
  const keys = new Map<MacPurpose, Buffer>(
    (['pre-authorized_code', 'c_nonce', 'tx_code', 'issuer_state', 'dpop_nonce'] as const).map((purpose) => [
      purpose,
      Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), `oid4vci ${purpose}`, 32)),
    ]),
  );
  const mac = (purpose: MacPurpose, text: string): string =>
    createHmac('sha256', keys.get(purpose)!).update(text, 'utf8').digest('base64url');
  return {
    mac,
    verify: (purpose, text, given) => {
      const expected = Buffer.from(mac(purpose, text), 'base64url');
      const actual = Buffer.from(given, 'base64url');
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
};

/** 256 random bits, base64url: access tokens and nonce ids. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
