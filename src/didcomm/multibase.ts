// Multibase base58btc (`z...`) and the multicodec prefixes of the keys DIDComm peers publish in
// did:peer and did:key: only what resolving them needs.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** The bytes of a base58btc string, or undefined when a character is not of the alphabet. */
export const base58Decode = (text: string): Buffer | undefined => {
  let value = 0n;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const hex = value === 0n ? '' : value.toString(16);
  const body = Buffer.from(hex.length % 2 === 1 ? `0${hex}` : hex, 'hex');
  const zeros = /^1*/.exec(text)![0].length;
  return Buffer.concat([Buffer.alloc(zeros), body]);
};

/** The multicodec varint of an X25519 public key (0xec). */
const X25519_MULTICODEC = Buffer.from([0xec, 0x01]);

/** The raw X25519 public key of a multibase `z...` multikey, or undefined when it is something else. */
export const x25519FromMultibase = (multibase: string): Buffer | undefined => {
  if (!multibase.startsWith('z')) return undefined;
  const bytes = base58Decode(multibase.slice(1));
  if (!bytes || bytes.length !== 34 || !bytes.subarray(0, 2).equals(X25519_MULTICODEC)) return undefined;
  return bytes.subarray(2);
};

