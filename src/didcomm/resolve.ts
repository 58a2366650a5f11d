// DID resolution for DIDComm: what a message is encrypted to (the X25519 keys under
// `keyAgreement`) and where it goes (the `DIDCommMessaging` services). Recipients are `did:peer:2`
// (keys and services inline, DIF peer DID method, numalgo 2) or `did:web` (a document fetched over
// https); a mediator's routing key may also be a `did:key` of an X25519 key. All three become a
// DID document, read by one parser.
import { createPublicKey } from 'node:crypto';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { RecipientKey } from './jwe.js';
import { x25519FromMultibase } from './multibase.js';
import { ownValue } from '../ownProperty.js';

export interface MessagingService {
  readonly id: string;
  readonly uri: string;
  /** DID URLs of the mediators' keys, the first the one the message is posted to. */
  readonly routingKeys: readonly string[];
  readonly accept: readonly string[] | undefined;
}

export interface ResolvedDid {
  readonly id: string;
  readonly keyAgreement: readonly RecipientKey[];
  readonly services: readonly MessagingService[];
}

/** A DID the connector cannot send to, whatever the network says: the creation's 400. */
export type DidRefused =
  | { readonly _tag: 'UnsupportedDidMethod'; readonly method: string }
  | { readonly _tag: 'InvalidDid'; readonly reason: string };

/** A DID that did not resolve now (its document unreachable or unusable): an attempt that failed. */
export type DidNotResolved = { readonly _tag: 'DidNotResolved'; readonly reason: string };

/** Fetches a did:web document: the parsed JSON, or why not (never naming the host: it can name a person). */
export type FetchDocument = (url: URL) => Promise<Either<string, unknown>>;

const invalid = (reason: string): Either<DidRefused, never> => left({ _tag: 'InvalidDid', reason });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// did:peer:2 service abbreviations (DIF peer DID method, "Method 2").
const ABBREVIATIONS: Readonly<Record<string, string>> = { t: 'type', s: 'serviceEndpoint', r: 'routingKeys', a: 'accept', uri: 'uri' };
const expand = (value: unknown): unknown => {
  if (value === 'dm') return 'DIDCommMessaging';
  if (Array.isArray(value)) return value.map(expand);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [ownValue(ABBREVIATIONS, k) ?? k, k === 'r' || k === 'a' ? v : expand(v)]));
};

const multikey = (did: string, id: string, multibase: string): Json => ({ id, type: 'Multikey', controller: did, publicKeyMultibase: multibase });

/** The DID document of a did:peer:2: `.E` key-agreement keys, `.V` authentication keys, `.S` services. */
const peer2Document = (did: string): Either<DidRefused, Json> => {
  const elements = did.slice('did:peer:2'.length).split('.').slice(1);
  if (elements.length === 0) return invalid('a did:peer:2 with no elements');
  const verificationMethod: Json[] = [];
  const keyAgreement: string[] = [];
  const authentication: string[] = [];
  const service: unknown[] = [];
  for (const element of elements) {
    const [purpose, value] = [element[0], element.slice(1)];
    if (purpose === 'E' || purpose === 'V') {
      if (!value.startsWith('z')) return invalid('a did:peer:2 key is not a multibase base58btc key');
      const id = `#key-${verificationMethod.length + 1}`;
      verificationMethod.push(multikey(did, id, value));
      (purpose === 'E' ? keyAgreement : authentication).push(id);
    } else if (purpose === 'S') {
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
      } catch {
        return invalid('a did:peer:2 service is not base64url JSON');
      }
      for (const s of Array.isArray(decoded) ? decoded : [decoded]) {
        if (!isObject(s)) return invalid('a did:peer:2 service is not an object');
        const expanded = expand(s) as Json;
        service.push({ ...expanded, id: typeof expanded['id'] === 'string' ? expanded['id'] : service.length === 0 ? '#service' : `#service-${service.length}` });
      }
    } else if (purpose !== 'A' && purpose !== 'I' && purpose !== 'D') {
      return invalid(`a did:peer:2 element with the unknown purpose ${JSON.stringify(purpose ?? '')}`);
    }
  }
  return right({ id: did, verificationMethod, keyAgreement, authentication, service });
};

/** The DID document of a did:key of an X25519 key (a mediator's routing key). */
const keyDocument = (did: string): Either<DidRefused, Json> => {
  const multibase = did.slice('did:key:'.length);
  if (!x25519FromMultibase(multibase)) return invalid('a did:key that is not an X25519 key');
  const id = `${did}#${multibase}`;
  return right({ id: did, verificationMethod: [multikey(did, id, multibase)], keyAgreement: [id], service: [] });
};

/** The https URL a did:web resolves to (W3C did:web: `:` separates path segments, `%3A` is a port). */
const webDocumentUrl = (did: string, allowHttp: boolean): Either<DidRefused, URL> => {
  const segments = did.slice('did:web:'.length).split(':').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return '';
    }
  });
  if (segments.some((s) => s === '' || s.includes('/'))) return invalid('a did:web with an empty or malformed segment');
  const [host, ...path] = segments;
  let url: URL;
  try {
    url = new URL(`${allowHttp ? 'http' : 'https'}://${host}/${path.length === 0 ? '.well-known' : path.map(encodeURIComponent).join('/')}/did.json`);
  } catch {
    return invalid('a did:web whose host is not a host name');
  }
  return url.host === host!.toLowerCase() ? right(url) : invalid('a did:web whose host is not a host name');
};

/**
 * Whether the connector can send to this DID at all: its method is `peer` (numalgo 2, decoded
 * here) or `web`. Checked when a message is created, so a refusal is a 400 and nothing is sent.
 */
export const checkRecipientDid = (did: string): Either<DidRefused, void> => {
  const method = /^did:([a-z0-9]+):/.exec(did)?.[1];
  if (method === undefined) return invalid('not a DID');
  if (method === 'peer') {
    if (!did.startsWith('did:peer:2')) return left({ _tag: 'UnsupportedDidMethod', method: `peer (numalgo ${did.charAt('did:peer:'.length)})` });
    const document = peer2Document(did);
    return document._tag === 'Left' ? document : right(undefined);
  }
  if (method === 'web') {
    const url = webDocumentUrl(did, false);
    return url._tag === 'Left' ? url : right(undefined);
  }
  return left({ _tag: 'UnsupportedDidMethod', method });
};

/** An X25519 key of a verification method (a JWK, or a multibase multikey), or undefined. */
const x25519Of = (method: Json): RecipientKey['publicKey'] | undefined => {
  const jwk = method['publicKeyJwk'];
  if (isObject(jwk) && jwk['kty'] === 'OKP' && jwk['crv'] === 'X25519' && typeof jwk['x'] === 'string') {
    try {
      return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: jwk['x'] }, format: 'jwk' });
    } catch {
      return undefined;
    }
  }
  const raw = typeof method['publicKeyMultibase'] === 'string' ? x25519FromMultibase(method['publicKeyMultibase']) : undefined;
  return raw && createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') }, format: 'jwk' });
};

/** `#frag` relative to the DID, or absolute. */
const absolute = (did: string, id: string): string => (id.startsWith('#') ? `${did}${id}` : id);

/** The serviceEndpoint forms: the object `{uri, accept, routingKeys}`, a list of them, or (older) a URI string. */
const endpointsOf = (service: Json): { uri: string; routingKeys: string[]; accept: string[] | undefined }[] => {
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined);
  const endpoint = service['serviceEndpoint'];
  const all = Array.isArray(endpoint) ? endpoint : [endpoint];
  return all.flatMap((e) => {
    if (typeof e === 'string') return [{ uri: e, routingKeys: strings(service['routingKeys']) ?? [], accept: strings(service['accept']) }];
    if (isObject(e) && typeof e['uri'] === 'string') return [{ uri: e['uri'], routingKeys: strings(e['routingKeys']) ?? [], accept: strings(e['accept']) }];
    return [];
  });
};

/** Reads a DID document: its X25519 key-agreement keys and DIDComm messaging services. */
export const readDidDocument = (did: string, document: unknown): Either<DidNotResolved, ResolvedDid> => {
  if (!isObject(document) || document['id'] !== did) return left({ _tag: 'DidNotResolved', reason: 'the document is not the DID\'s' });
  const methods = new Map<string, Json>();
  for (const m of Array.isArray(document['verificationMethod']) ? document['verificationMethod'] : []) {
    if (isObject(m) && typeof m['id'] === 'string') methods.set(absolute(did, m['id']), m);
  }
  const keyAgreement: RecipientKey[] = [];
  for (const entry of Array.isArray(document['keyAgreement']) ? document['keyAgreement'] : []) {
    const method = typeof entry === 'string' ? methods.get(absolute(did, entry)) : isObject(entry) ? entry : undefined;
    const kid = typeof entry === 'string' ? absolute(did, entry) : method && typeof method['id'] === 'string' ? absolute(did, method['id']) : undefined;
    const publicKey = method && x25519Of(method);
    if (kid && publicKey) keyAgreement.push({ kid, publicKey });
  }
  const services: MessagingService[] = [];
  for (const s of Array.isArray(document['service']) ? document['service'] : []) {
    if (!isObject(s) || s['type'] !== 'DIDCommMessaging') continue;
    const id = absolute(did, typeof s['id'] === 'string' ? s['id'] : '#service');
    for (const endpoint of endpointsOf(s)) services.push({ id, ...endpoint });
  }
  return right({ id: did, keyAgreement, services });
};

export interface ResolveOptions {
  readonly fetchDocument: FetchDocument;
  /** Resolve did:web over http (EGRESS_ALLOW_PRIVATE_NETWORKS). */
  readonly allowHttp: boolean;
}

/** Resolves a DID (did:peer:2, did:web, did:key): its document read, or why not. */
export const resolveDid = async (did: string, options: ResolveOptions): Promise<Either<DidRefused | DidNotResolved, ResolvedDid>> => {
  let document: Either<DidRefused, unknown>;
  if (did.startsWith('did:peer:2')) document = peer2Document(did);
  else if (did.startsWith('did:key:')) document = keyDocument(did);
  else if (did.startsWith('did:web:')) {
    const url = webDocumentUrl(did, options.allowHttp);
    if (url._tag === 'Left') return url;
    const fetched = await options.fetchDocument(url.right);
    if (fetched._tag === 'Left') return left({ _tag: 'DidNotResolved', reason: `did:web document not read: ${fetched.left}` });
    document = fetched;
  } else return left({ _tag: 'UnsupportedDidMethod', method: /^did:([a-z0-9]+):/.exec(did)?.[1] ?? 'none' });
  return document._tag === 'Left' ? document : readDidDocument(did, document.right);
};

/** The key a routing key's DID URL names, in its DID's key agreement. */
export const resolveKey = async (didUrl: string, options: ResolveOptions): Promise<Either<DidRefused | DidNotResolved, RecipientKey>> => {
  const did = didUrl.split('#')[0]!;
  const resolved = await resolveDid(did, options);
  if (resolved._tag === 'Left') return resolved;
  const key = resolved.right.keyAgreement.find((k) => k.kid === didUrl) ?? (didUrl === did ? resolved.right.keyAgreement[0] : undefined);
  return key ? right(key) : left({ _tag: 'DidNotResolved', reason: 'a routing key is not an X25519 key-agreement key of its DID' });
};
