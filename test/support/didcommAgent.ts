// A DIDComm recipient for the tests: an X25519 key pair, its own did:peer:2 (built here from the
// DIF peer DID method, not with the connector's code) whose DIDCommMessaging service points at a
// loopback receiver, and an independent DIDComm library (didcomm-node, the DIF/SICPA reference
// implementation compiled to WASM) to unpack what arrives. The library resolves the sender's
// did:web itself, by fetching the document the connector serves.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as DidcommNode from 'didcomm-node';

const require = createRequire(import.meta.url);
// didcomm-node is CommonJS (wasm-bindgen's nodejs target).
const { Message } = require('didcomm-node') as typeof DidcommNode;

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** base58btc, as the multibase `z` prefix means. */
export const base58btc = (bytes: Uint8Array): string => {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)]! + out;
    value /= 58n;
  }
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out = `1${out}`;
  return out;
};

/** An X25519 public key as a multikey: multicodec 0xec 0x01, then the key, base58btc. */
export const x25519Multikey = (publicKey: KeyObject): string => {
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  return `z${base58btc(Buffer.concat([Buffer.from([0xec, 0x01]), raw]))}`;
};

export interface Agent {
  readonly did: string;
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

type DidDoc = Record<string, unknown>;

/**
 * A recipient whose did:peer:2 has one key-agreement key (`.E`) and a DIDCommMessaging service
 * (`.S`, abbreviated as the method specifies) at `uri`, optionally through mediators' `routingKeys`.
 */
export const createAgent = (uri: string, routingKeys: readonly string[] = []): Agent => {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const service = { t: 'dm', s: { uri, a: ['didcomm/v2'], ...(routingKeys.length > 0 ? { r: routingKeys } : {}) } };
  const did = `did:peer:2.E${x25519Multikey(publicKey)}.S${Buffer.from(JSON.stringify(service)).toString('base64url')}`;
  return { did, kid: `${did}#key-1`, privateKey, publicKey };
};

/** A mediator whose routing key is a did:key of an X25519 key. */
export const createMediatorKey = (): Agent => {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const multikey = x25519Multikey(publicKey);
  const did = `did:key:${multikey}`;
  return { did, kid: `${did}#${multikey}`, privateKey, publicKey };
};

const keyDocument = (agent: Agent): DidDoc => ({
  id: agent.did,
  keyAgreement: [agent.kid],
  authentication: [],
  verificationMethod: [{ id: agent.kid, type: 'JsonWebKey2020', controller: agent.did, publicKeyJwk: agent.publicKey.export({ format: 'jwk' }) }],
  service: [],
});

/** did:web to the URL of its document (W3C did:web), over http: the connector listens on loopback. */
const didWebUrl = (did: string): string => {
  const [host, ...path] = did.slice('did:web:'.length).split(':').map(decodeURIComponent);
  return `http://${host}/${path.length === 0 ? '.well-known' : path.join('/')}/did.json`;
};

export interface Unpacked {
  readonly message: DidcommNode.IMessage;
  readonly metadata: DidcommNode.UnpackMetadata;
}

/** Unpacks `packed` as `agents` (their secrets), resolving did:web over http and the agents' own DIDs. */
export const unpack = async (packed: string, agents: readonly Agent[]): Promise<Unpacked> => {
  const resolver: DidcommNode.DIDResolver = {
    resolve: async (did: string) => {
      const own = agents.find((a) => a.did === did);
      if (own) return keyDocument(own) as unknown as DidcommNode.DIDDoc;
      if (!did.startsWith('did:web:')) return null;
      const response = await fetch(didWebUrl(did));
      if (response.status !== 200) return null;
      const served = (await response.json()) as Record<string, unknown>;
      return { service: [], ...served } as unknown as DidcommNode.DIDDoc;
    },
  };
  const secrets: DidcommNode.SecretsResolver = {
    get_secret: async (id: string) => {
      const agent = agents.find((a) => a.kid === id);
      return agent ? { id, type: 'JsonWebKey2020', privateKeyJwk: agent.privateKey.export({ format: 'jwk' }) } : null;
    },
    find_secrets: async (ids: string[]) => ids.filter((id) => agents.some((a) => a.kid === id)),
  };
  const [message, metadata] = await Message.unpack(packed, resolver, secrets, {});
  return { message: message.as_value(), metadata };
};
