// DIDComm v2 encrypted messages (JWE, General JSON serialization) for X25519 keys, with
// A256CBC-HS512 content encryption and AES key wrap of the content key per recipient:
//   authcrypt: ECDH-1PU+A256KW (draft-madden-jose-ecdh-1pu-04): the key-wrapping key mixes the
//              sender's static key in, so a recipient that decrypts knows the sender (`skid`);
//   anoncrypt: ECDH-ES+A256KW (RFC 7518 4.6): used to wrap a message in a routing `forward`.
// `jose` implements ECDH-ES but not ECDH-1PU, whose KDF takes the content's authentication tag
// (so the content is encrypted before any key is wrapped); both share the steps below, on
// node:crypto. The test suite proves both against an independent DIDComm implementation.
import { createCipheriv, createHash, createHmac, diffieHellman, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { x25519PublicJwk } from './keyAgreement.js';

export const ENCRYPTED_MEDIA_TYPE = 'application/didcomm-encrypted+json';

export interface RecipientKey {
  /** The DID URL of the recipient's key-agreement key. */
  readonly kid: string;
  readonly publicKey: KeyObject;
}

export interface SenderKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

export interface GeneralJwe {
  readonly protected: string;
  readonly recipients: readonly { readonly header: { readonly kid: string }; readonly encrypted_key: string }[];
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

const b64u = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');

const lengthPrefixed = (bytes: Uint8Array): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/**
 * NIST SP 800-56A Concat KDF with SHA-256, one round (256-bit output): AlgorithmID, PartyUInfo and
 * PartyVInfo length-prefixed; SuppPubInfo the key length in bits, then for ECDH-1PU the content
 * tag, length-prefixed (draft-madden-jose-ecdh-1pu-04, 2.3).
 */
const concatKdf = (z: Buffer, alg: string, apu: Buffer, apv: Buffer, ccTag: Buffer | undefined): Buffer => {
  const bits = Buffer.alloc(4);
  bits.writeUInt32BE(256);
  const round = Buffer.from([0, 0, 0, 1]);
  const suppPubInfo = ccTag ? Buffer.concat([bits, lengthPrefixed(ccTag)]) : bits;
  return createHash('sha256')
    .update(Buffer.concat([round, z, lengthPrefixed(Buffer.from(alg, 'ascii')), lengthPrefixed(apu), lengthPrefixed(apv), suppPubInfo]))
    .digest();
};

/** A256CBC-HS512 (RFC 7518 5.2.5): AES-256-CBC under the key's second half, HMAC-SHA-512 under its first, truncated. */
const encryptContent = (cek: Buffer, plaintext: Buffer, aad: Buffer): { iv: Buffer; ciphertext: Buffer; tag: Buffer } => {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', cek.subarray(32, 64), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const al = Buffer.alloc(8);
  al.writeBigUInt64BE(BigInt(aad.length * 8));
  const tag = createHmac('sha512', cek.subarray(0, 32)).update(Buffer.concat([aad, iv, ciphertext, al])).digest().subarray(0, 32);
  return { iv, ciphertext, tag };
};

/** AES Key Wrap (RFC 3394) with the default IV. */
const wrapKey = (kek: Buffer, cek: Buffer): Buffer => {
  const cipher = createCipheriv('id-aes256-wrap', kek, Buffer.from('a6a6a6a6a6a6a6a6', 'hex'));
  return Buffer.concat([cipher.update(cek), cipher.final()]);
};

/** DIDComm's `apv`: SHA-256 of the recipients' kids, sorted and joined with `.`. */
const apvOf = (recipients: readonly RecipientKey[]): Buffer =>
  createHash('sha256').update([...recipients.map((r) => r.kid)].sort().join('.')).digest();

const encrypt = (plaintext: Buffer, recipients: readonly RecipientKey[], sender: SenderKey | undefined): GeneralJwe => {
  if (recipients.length === 0) throw new Error('a JWE needs at least one recipient');
  const ephemeral = generateKeyPairSync('x25519');
  const alg = sender ? 'ECDH-1PU+A256KW' : 'ECDH-ES+A256KW';
  const apv = apvOf(recipients);
  const apu = sender ? Buffer.from(sender.kid, 'utf8') : undefined;
  const header = {
    typ: ENCRYPTED_MEDIA_TYPE,
    alg,
    enc: 'A256CBC-HS512',
    ...(sender && apu ? { skid: sender.kid, apu: b64u(apu) } : {}),
    apv: b64u(apv),
    epk: x25519PublicJwk(ephemeral.privateKey),
  };
  const protectedHeader = b64u(JSON.stringify(header));
  const cek = randomBytes(64);
  const { iv, ciphertext, tag } = encryptContent(cek, plaintext, Buffer.from(protectedHeader, 'ascii'));
  const wrapped = recipients.map((recipient) => {
    const ze = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient.publicKey });
    const z = sender ? Buffer.concat([ze, diffieHellman({ privateKey: sender.privateKey, publicKey: recipient.publicKey })]) : ze;
    const kek = concatKdf(z, alg, apu ?? Buffer.alloc(0), apv, sender ? tag : undefined);
    return { header: { kid: recipient.kid }, encrypted_key: b64u(wrapKey(kek, cek)) };
  });
  return { protected: protectedHeader, recipients: wrapped, iv: b64u(iv), ciphertext: b64u(ciphertext), tag: b64u(tag) };
};

/** Authcrypt: encrypted to every recipient key and authenticated as `sender`. */
export const authcrypt = (plaintext: Buffer, recipients: readonly RecipientKey[], sender: SenderKey): GeneralJwe => encrypt(plaintext, recipients, sender);

/** Anoncrypt: encrypted to every recipient key, sender unknown. */
export const anoncrypt = (plaintext: Buffer, recipients: readonly RecipientKey[]): GeneralJwe => encrypt(plaintext, recipients, undefined);
