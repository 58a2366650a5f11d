// The wallet's presentation half, holder side of OpenID4VP 1.0 with direct_post.jwt, playing the
// protocol honestly: it parses the `openid4vp://` URI, fetches the request object and verifies it
// (ES256 signature by the x5c leaf, `client_id` = x509_hash of that leaf, typ, response mode),
// discloses exactly what the DCQL query asks for, binds the presentation to the request's nonce
// and client_id with a KB-JWT (with transaction data hashes), encrypts the response to the
// request's key and posts it. Tests bend it through explicit options only, so each negative case
// says what it breaks.
import { createHash } from 'node:crypto';
import { CompactEncrypt, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Fetch } from './http.js';
import { present, type HeldCredential, type Holder, type KeyBindingOptions } from './sdJwt.js';
import { x5cLeaf } from './x5c.js';

export interface ParsedRequestUri {
  readonly clientId: string;
  readonly requestUri: string;
  /** How the request object is to be fetched: `request_uri_method`, GET when absent. */
  readonly requestUriMethod: 'get' | 'post';
}

export const parseRequestUri = (uri: string): ParsedRequestUri => {
  const url = new URL(uri);
  if (url.protocol !== 'openid4vp:') throw new Error('not an openid4vp:// URI');
  const clientId = url.searchParams.get('client_id');
  const requestUri = url.searchParams.get('request_uri');
  if (clientId === null || requestUri === null) throw new Error('client_id or request_uri missing');
  const method = url.searchParams.get('request_uri_method') ?? 'get';
  if (method !== 'get' && method !== 'post') throw new Error(`request_uri_method ${method} is neither get nor post`);
  return { clientId, requestUri, requestUriMethod: method };
};

export interface ClaimsQuery {
  readonly path: readonly (string | number | null)[];
  readonly values?: readonly unknown[];
}

export interface CredentialQuery {
  readonly id: string;
  readonly format?: string;
  readonly meta?: { readonly vct_values?: readonly string[]; readonly doctype_value?: string };
  readonly claims: readonly ClaimsQuery[];
  readonly require_cryptographic_holder_binding?: boolean;
}

export interface CredentialSetQuery {
  readonly options: readonly (readonly string[])[];
  readonly required?: boolean;
}

export interface AuthorizationRequest {
  readonly jwt: string;
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly clientId: string;
  readonly state: string;
  readonly nonce: string;
  readonly responseUri: string;
  readonly encryptionKey: JWK;
  readonly transactionData: readonly string[];
  readonly credentialQueries: readonly CredentialQuery[];
  /** Which combinations of credential queries answer the request; absent: all of them. */
  readonly credentialSets?: readonly CredentialSetQuery[];
}

const sha256Base64url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** Fetches the request object and checks it as a careful wallet would; throws on anything wrong. */
export const fetchAuthorizationRequest = async (
  fetch: Fetch,
  uri: string,
  options: { readonly method?: 'get' | 'post'; readonly walletNonce?: string } = {},
): Promise<AuthorizationRequest> => {
  const { clientId, requestUri } = parseRequestUri(uri);
  const response =
    options.method === 'post'
      ? await fetch(requestUri, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(options.walletNonce === undefined ? {} : { wallet_nonce: options.walletNonce }).toString(),
        })
      : await fetch(requestUri);
  if (response.status !== 200) throw new Error(`request object fetch answered ${response.status}: ${await response.text()}`);
  if (response.headers.get('content-type') !== 'application/oauth-authz-req+jwt') throw new Error('wrong request object media type');
  const jwt = await response.text();
  const header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  if (header['typ'] !== 'oauth-authz-req+jwt' || header['alg'] !== 'ES256') throw new Error('request object: wrong typ or alg');
  const leaf = x5cLeaf(header);
  if (clientId !== `x509_hash:${sha256Base64url(leaf.raw)}`) throw new Error('request object: client_id is not the hash of the x5c leaf');
  const { payload: bytes } = await compactVerify(jwt, leaf.publicKey, { algorithms: ['ES256'] }).catch(() => {
    throw new Error('request object: the signature does not verify with the x5c leaf');
  });
  const payload = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  if (payload['client_id'] !== clientId) throw new Error('request object: client_id differs from the URI');
  if (payload['response_mode'] !== 'direct_post.jwt' || payload['response_type'] !== 'vp_token') throw new Error('request object: unexpected response mode');
  if (options.walletNonce !== undefined && payload['wallet_nonce'] !== options.walletNonce) throw new Error('request object: wallet_nonce not echoed');
  const metadata = payload['client_metadata'] as { jwks: { keys: JWK[] } };
  const encryptionKey = metadata.jwks.keys[0];
  if (encryptionKey === undefined) throw new Error('request object: no encryption key');
  const dcql = payload['dcql_query'] as { credentials: CredentialQuery[]; credential_sets?: CredentialSetQuery[] };
  return {
    jwt,
    header,
    payload,
    clientId,
    state: payload['state'] as string,
    nonce: payload['nonce'] as string,
    responseUri: payload['response_uri'] as string,
    encryptionKey,
    transactionData: (payload['transaction_data'] as string[] | undefined) ?? [],
    credentialQueries: dcql.credentials,
    ...(dcql.credential_sets === undefined ? {} : { credentialSets: dcql.credential_sets }),
  };
};

/**
 * The disclosure names a path needs: every prefix that is itself disclosable (a disclosed
 * `address.street` needs `address` too); `null` takes every element.
 */
const disclosuresFor = (credential: HeldCredential, path: ClaimsQuery['path']): string[] => {
  let prefixes = [''];
  const names: string[] = [];
  for (const element of path) {
    prefixes = prefixes.flatMap((prefix) => {
      if (element === null) {
        return Object.keys(credential.disclosures)
          .map((name) => new RegExp(`^${prefix.replace(/[.[\]]/g, '\\$&')}\\[(\\d+)\\]`).exec(name)?.[0])
          .filter((name): name is string => name !== undefined);
      }
      return [typeof element === 'number' ? `${prefix}[${element}]` : prefix === '' ? element : `${prefix}.${element}`];
    });
    names.push(...prefixes.filter((p) => p in credential.disclosures));
  }
  return names;
};

export interface Holding {
  readonly credential: HeldCredential;
  readonly holder: Holder;
  /** Disclose these instead of what the query asks for. */
  readonly disclose?: readonly string[];
  /** Changes to the honest KB-JWT (wrong nonce, wrong aud, ...). */
  readonly keyBinding?: Partial<KeyBindingOptions>;
}

/** The disclosures the wallet shows for `query`: exactly what its claims ask for. */
export const disclosedFor = (query: CredentialQuery, credential: HeldCredential): string[] => [
  ...new Set(query.claims.flatMap((c) => disclosuresFor(credential, c.path))),
];

/**
 * The `vp_token`: for each credential query the wallet holds something for, one presentation.
 * Key bindings name `audience`: the client_id, or over the Digital Credentials API the origin (dcApi.ts).
 */
export const buildVpToken = async (
  request: Pick<AuthorizationRequest, 'clientId' | 'nonce' | 'transactionData' | 'credentialQueries'>,
  holdings: Readonly<Record<string, Holding>>,
  audience: string = request.clientId,
): Promise<Record<string, string[]>> => {
  const vpToken: Record<string, string[]> = {};
  for (const [id, holding] of Object.entries(holdings)) {
    const query = request.credentialQueries.find((q) => q.id === id);
    const disclose = holding.disclose ?? (query === undefined ? [] : disclosedFor(query, holding.credential));
    const transactionData = request.transactionData.filter((encoded) => {
      const item = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as { credential_ids: string[] };
      return item.credential_ids.includes(id);
    });
    const bind = query?.require_cryptographic_holder_binding ?? true;
    vpToken[id] = [
      await present(holding.credential, {
        disclose,
        ...(bind
          ? {
              keyBinding: {
                holder: holding.holder,
                aud: audience,
                nonce: request.nonce,
                ...(transactionData.length > 0 ? { transactionData } : {}),
                ...holding.keyBinding,
              },
            }
          : {}),
      }),
    ];
  }
  return vpToken;
};

export interface EncryptOptions {
  readonly enc?: 'A128GCM' | 'A256GCM';
  /** Encrypt to this key instead of the request's. */
  readonly key?: JWK;
  /** `kid` header; default the request key's, `null` leaves it out. */
  readonly kid?: string | null;
}

/** The direct_post.jwt (or dc_api.jwt) response: the authorization response parameters as an ECDH-ES JWE. */
export const encryptResponse = async (request: Pick<AuthorizationRequest, 'encryptionKey'>, parameters: Record<string, unknown>, options: EncryptOptions = {}): Promise<string> => {
  const key = options.key ?? request.encryptionKey;
  const kid = options.kid === undefined ? request.encryptionKey.kid : options.kid;
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(parameters)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: options.enc ?? 'A128GCM', ...(kid === null ? {} : { kid }) })
    .encrypt(await importJWK(key, 'ECDH-ES'));
};

export interface PostedResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly cacheControl: string | null;
}

/** Posts a form to the request's response_uri. */
export const postResponse = async (
  fetch: Fetch,
  request: Pick<AuthorizationRequest, 'responseUri'>,
  form: Record<string, string>,
): Promise<PostedResponse> => {
  const response = await fetch(request.responseUri, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cacheControl: response.headers.get('cache-control') };
};

/** The whole honest answer: presentations for `holdings`, encrypted with the request's state. */
export const answer = async (
  fetch: Fetch,
  request: AuthorizationRequest,
  holdings: Readonly<Record<string, Holding>>,
  options: EncryptOptions = {},
): Promise<PostedResponse> => {
  const vpToken = await buildVpToken(request, holdings);
  const jwe = await encryptResponse(request, { vp_token: vpToken, state: request.state }, options);
  return postResponse(fetch, request, { response: jwe });
};
