// A TEST wallet, holder side of OpenID4VP 1.0 with direct_post.jwt, playing the protocol honestly:
// it parses the `openid4vp://` URI, fetches the request object and verifies it (ES256 signature
// by the x5c leaf, `client_id` = x509_hash of that leaf, typ, response mode), discloses exactly
// what the DCQL query asks for, binds the presentation to the request's nonce and client_id with
// a KB-JWT (with transaction data hashes), encrypts the response to the request's key and posts
// it. Tests bend it through explicit options only, so each negative case says what it breaks.
import { createHash, X509Certificate } from 'node:crypto';
import { CompactEncrypt, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { present, type Holder, type IssuedCredential, type KeyBindingOptions } from '../credentials.js';
import { documentedFetch } from '../openapi.js';

export interface WalletEndpoints {
  /** The connector's PUBLIC_URL, as it appears in URIs. */
  readonly publicUrl: string;
  /** Where that public URL really listens in the test. */
  readonly listenUrl: string;
}

const resolve = (endpoints: WalletEndpoints, url: string): string => {
  if (!url.startsWith(`${endpoints.publicUrl}/`)) throw new Error(`wallet: ${url} is not under ${endpoints.publicUrl}`);
  return endpoints.listenUrl + url.slice(endpoints.publicUrl.length);
};

export interface ParsedRequestUri {
  readonly clientId: string;
  readonly requestUri: string;
}

export const parseRequestUri = (uri: string): ParsedRequestUri => {
  const url = new URL(uri);
  if (url.protocol !== 'openid4vp:') throw new Error(`wallet: not an openid4vp URI: ${uri}`);
  const clientId = url.searchParams.get('client_id');
  const requestUri = url.searchParams.get('request_uri');
  if (clientId === null || requestUri === null) throw new Error('wallet: client_id or request_uri missing');
  return { clientId, requestUri };
};

export interface ClaimsQuery {
  readonly path: readonly (string | number | null)[];
}

export interface CredentialQuery {
  readonly id: string;
  readonly claims: readonly ClaimsQuery[];
  readonly require_cryptographic_holder_binding?: boolean;
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
}

const sha256Base64url = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** Fetches the request object and checks it as a careful wallet would; throws on anything wrong. */
export const fetchAuthorizationRequest = async (
  endpoints: WalletEndpoints,
  uri: string,
  options: { readonly method?: 'get' | 'post'; readonly walletNonce?: string } = {},
): Promise<AuthorizationRequest> => {
  const { clientId, requestUri } = parseRequestUri(uri);
  const response =
    options.method === 'post'
      ? await documentedFetch('public')(resolve(endpoints, requestUri), {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(options.walletNonce === undefined ? {} : { wallet_nonce: options.walletNonce }).toString(),
        })
      : await documentedFetch('public')(resolve(endpoints, requestUri));
  if (response.status !== 200) throw new Error(`wallet: request object fetch answered ${response.status}: ${await response.text()}`);
  if (response.headers.get('content-type') !== 'application/oauth-authz-req+jwt') throw new Error('wallet: wrong request object media type');
  const jwt = await response.text();
  const header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  if (header['typ'] !== 'oauth-authz-req+jwt' || header['alg'] !== 'ES256') throw new Error('wallet: wrong typ or alg');
  const x5c = header['x5c'];
  if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') throw new Error('wallet: no x5c');
  const leaf = new X509Certificate(Buffer.from(x5c[0], 'base64'));
  if (clientId !== `x509_hash:${sha256Base64url(leaf.raw)}`) throw new Error('wallet: client_id is not the hash of the x5c leaf');
  const { payload: bytes } = await compactVerify(jwt, leaf.publicKey, { algorithms: ['ES256'] });
  const payload = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  if (payload['client_id'] !== clientId) throw new Error('wallet: client_id in the request object differs from the URI');
  if (payload['response_mode'] !== 'direct_post.jwt' || payload['response_type'] !== 'vp_token') throw new Error('wallet: unexpected response mode');
  if (options.walletNonce !== undefined && payload['wallet_nonce'] !== options.walletNonce) throw new Error('wallet: wallet_nonce not echoed');
  const metadata = payload['client_metadata'] as { jwks: { keys: JWK[] } };
  const encryptionKey = metadata.jwks.keys[0];
  if (encryptionKey === undefined) throw new Error('wallet: no encryption key');
  const dcql = payload['dcql_query'] as { credentials: CredentialQuery[] };
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
  };
};

/**
 * The disclosure names a path needs: every prefix that is itself disclosable (a disclosed
 * `address.street` needs `address` too); `null` takes every element.
 */
const disclosuresFor = (credential: IssuedCredential, path: ClaimsQuery['path']): string[] => {
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
  readonly credential: IssuedCredential;
  readonly holder: Holder;
  /** Disclose these instead of what the query asks for. */
  readonly disclose?: readonly string[];
  /** Changes to the honest KB-JWT (wrong nonce, wrong aud, ...). */
  readonly keyBinding?: Partial<KeyBindingOptions>;
}

/** The `vp_token`: for each credential query the wallet holds something for, one presentation. */
export const buildVpToken = async (
  request: AuthorizationRequest,
  holdings: Readonly<Record<string, Holding>>,
): Promise<Record<string, string[]>> => {
  const vpToken: Record<string, string[]> = {};
  for (const [id, holding] of Object.entries(holdings)) {
    const query = request.credentialQueries.find((q) => q.id === id);
    const disclose = holding.disclose ?? [...new Set(query?.claims.flatMap((c) => disclosuresFor(holding.credential, c.path)) ?? [])];
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
                aud: request.clientId,
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

/** The direct_post.jwt response: the authorization response parameters as an ECDH-ES JWE. */
export const encryptResponse = async (request: AuthorizationRequest, parameters: Record<string, unknown>, options: EncryptOptions = {}): Promise<string> => {
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
  endpoints: WalletEndpoints,
  request: Pick<AuthorizationRequest, 'responseUri'>,
  form: Record<string, string>,
): Promise<PostedResponse> => {
  const response = await documentedFetch('public')(resolve(endpoints, request.responseUri), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cacheControl: response.headers.get('cache-control') };
};

/** The whole honest answer: presentations for `holdings`, encrypted with the request's state. */
export const answer = async (
  endpoints: WalletEndpoints,
  request: AuthorizationRequest,
  holdings: Readonly<Record<string, Holding>>,
  options: EncryptOptions = {},
): Promise<PostedResponse> => {
  const vpToken = await buildVpToken(request, holdings);
  const jwe = await encryptResponse(request, { vp_token: vpToken, state: request.state }, options);
  return postResponse(endpoints, request, { response: jwe });
};
