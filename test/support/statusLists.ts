// Test-side Status Lists (draft-ietf-oauth-status-list), written from the draft and sharing no code
// with src/statusList or either side's token code, so a packing or signing bug there cannot hide
// behind the same bug here: pack and read statuses, sign a Status List Token as another issuer
// would, and serve tokens from a loopback HTTP server the test controls (answers, redirects, silence; hits counted per path,
// connections in all).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, inflateSync } from 'node:zlib';
import { sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { decode as cborDecode, encode as cborEncode, Tag } from 'cbor2';
import { SignJWT, type CryptoKey } from 'jose';

/** `lst` for `size` statuses of `bits` bits, all 0 but `set`. */
export const packLst = (bits: number, size: number, set: Readonly<Record<number, number>> = {}): string => {
  const bytes = Buffer.alloc(Math.ceil((size * bits) / 8));
  for (const [index, status] of Object.entries(set)) {
    const position = Number(index) * bits;
    bytes[Math.floor(position / 8)]! |= status << (position % 8);
  }
  return deflateSync(bytes).toString('base64url');
};

/** The status at `idx` of an `lst`. */
export const readLst = (lst: string, bits: number, idx: number): number => {
  const bytes = inflateSync(Buffer.from(lst, 'base64url'));
  const position = idx * bits;
  return (bytes[Math.floor(position / 8)]! >> (position % 8)) & ((1 << bits) - 1);
};

const part = (jwt: string, index: number): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[index]!, 'base64url').toString('utf8')) as Record<string, unknown>;

export const jwtHeader = (jwt: string) => part(jwt, 0);
export const jwtPayload = (jwt: string) => part(jwt, 1);

/** The status of entry `idx` in a Status List Token, read without verifying it. */
export const statusInToken = (jwt: string, idx: number): number => {
  const { bits, lst } = jwtPayload(jwt)['status_list'] as { bits: number; lst: string };
  return readLst(lst, bits, idx);
};

export interface StatusListSigner {
  readonly privateKey: CryptoKey;
  readonly x5c: readonly string[];
}

export interface StatusListTokenOptions {
  readonly sub: string;
  readonly lst: string;
  readonly bits?: number;
  /** Seconds; defaults: now, an hour ahead, 300. `null` leaves the claim out. */
  readonly iat?: number | null;
  readonly exp?: number | null;
  readonly ttl?: number | null;
  readonly typ?: string;
}

/** A Status List Token in JWT format, signed ES256 with `x5c`. */
export const signStatusList = (signer: StatusListSigner, o: StatusListTokenOptions): Promise<string> => {
  const now = Math.floor(Date.now() / 1000);
  const optional = (name: string, value: number | null | undefined, fallback: number) =>
    value === null ? {} : { [name]: value ?? fallback };
  return new SignJWT({
    sub: o.sub,
    ...optional('iat', o.iat, now),
    ...optional('exp', o.exp, now + 3600),
    ...optional('ttl', o.ttl, 300),
    status_list: { bits: o.bits ?? 1, lst: o.lst },
  })
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'statuslist+jwt', x5c: [...signer.x5c] })
    .sign(signer.privateKey);
};

export type ServedAnswer =
  | { readonly status: number; readonly body: string | Uint8Array; readonly contentType?: string }
  | { readonly redirect: string; readonly status?: number }
  | 'hang';

export interface StatusListServer {
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  serve(path: string, answer: ServedAnswer): void;
  hits(path: string): number;
  /** The Accept header of the last request to `path`. */
  accept(path: string): string | undefined;
  /** TCP connections accepted so far, whether or not a request followed. */
  connections(): number;
  close(): Promise<void>;
}

export const startStatusListServer = async (): Promise<StatusListServer> => {
  const answers = new Map<string, ServedAnswer>();
  const counts = new Map<string, number>();
  const accepts = new Map<string, string | undefined>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    accepts.set(path, req.headers.accept);
    const answer = answers.get(path) ?? { status: 404, body: '' };
    if (answer === 'hang') return;
    if ('redirect' in answer) {
      res.writeHead(answer.status ?? 302, { location: answer.redirect });
      res.end();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/statuslist+jwt' });
    res.end(answer.body);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    connections: () => connections,
    serve: (path, answer) => void answers.set(path, answer),
    hits: (path) => counts.get(path) ?? 0,
    accept: (path) => accepts.get(path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

// The CWT form (section 5.2), written from the draft with cbor2 and node:crypto only (no code of
// src/mdoc): COSE_Sign1 (tag 18) with `alg` (1) -7 and `typ` (16) protected, `x5chain` (33)
// unprotected; claims sub 2, iat 6, exp 4, ttl 65534, status_list 65533 {bits, lst: bytes}.

export interface StatusListCwtOptions extends Omit<StatusListTokenOptions, 'typ'> {
  /** The `typ` header; `null` leaves it out. */
  readonly typ?: string | null;
}

const sigStructure = (protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array => cborEncode(['Signature1', protectedBytes, new Uint8Array(0), payload]);

/** The CWT's claims map (integer keys) as the draft names them. */
export const cwtClaims = (o: Omit<StatusListCwtOptions, 'typ'>): Map<number, unknown> => {
  const now = Math.floor(Date.now() / 1000);
  const claims = new Map<number, unknown>([[2, o.sub]]);
  const optional = (key: number, value: number | null | undefined, fallback: number) => {
    if (value !== null) claims.set(key, value ?? fallback);
  };
  optional(6, o.iat, now);
  optional(4, o.exp, now + 3600);
  optional(65534, o.ttl, 300);
  claims.set(65533, new Map<string, unknown>([['bits', o.bits ?? 1], ['lst', new Uint8Array(Buffer.from(o.lst, 'base64url'))]]));
  return claims;
};

/** A Status List Token in CWT form signed ES256 by `signer`, its chain (base64 DER) in `x5chain`. */
export const signStatusListCwt = (signer: { readonly privateKey: KeyObject; readonly x5c: readonly string[] }, o: StatusListCwtOptions, payload?: Uint8Array): Uint8Array => {
  const header = new Map<number, unknown>([[1, -7]]);
  if (o.typ !== null) header.set(16, o.typ ?? 'application/statuslist+cwt');
  const protectedBytes = cborEncode(header);
  const body = payload ?? cborEncode(cwtClaims(o));
  const signature = sign('sha256', sigStructure(protectedBytes, body), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' });
  const x5chain = signer.x5c.map((der) => new Uint8Array(Buffer.from(der, 'base64')));
  return cborEncode(new Tag(18, [protectedBytes, new Map([[33, x5chain.length === 1 ? x5chain[0] : x5chain]]), body, new Uint8Array(signature)]));
};

/** A CWT decoded and its signature checked by its x5chain leaf, as an independent verifier would. */
export const readStatusListCwt = (bytes: Uint8Array): { protectedHeader: Map<unknown, unknown>; x5chain: Uint8Array[]; claims: Map<unknown, unknown>; signatureValid: boolean } => {
  const tagged = cborDecode(bytes, { preferMap: true }) as Tag;
  const [protectedBytes, unprotectedHeader, payload, signature] = tagged.contents as [Uint8Array, Map<number, unknown>, Uint8Array, Uint8Array];
  const chain = unprotectedHeader.get(33);
  const x5chain = chain instanceof Uint8Array ? [chain] : (chain as Uint8Array[]);
  const key = new X509Certificate(x5chain[0]!).publicKey;
  return {
    protectedHeader: cborDecode(protectedBytes, { preferMap: true }) as Map<unknown, unknown>,
    x5chain,
    claims: cborDecode(payload, { preferMap: true }) as Map<unknown, unknown>,
    signatureValid: verify('sha256', sigStructure(protectedBytes, payload), { key, dsaEncoding: 'ieee-p1363' }, signature),
  };
};
