// The holder's side of the W3C Digital Credentials API, playing the browser and the wallet at
// once: the browser hands the wallet the page's `{protocol, data}` requests with the page's
// origin; the wallet takes the first protocol it supports, in the page's order, answers it from
// its store and gives back the `data` the browser returns to the page.
//
// OpenID4VP 1.0 Appendix A (`openid4vp-v1-signed`, `openid4vp-v1-unsigned`): a signed request is
// verified as the redirect flow's (ES256 by the x5c leaf, `client_id` the x509_hash of that leaf,
// with trust anchors the chain validated and anchored) and must list the origin in
// `expected_origins` (A.2: simple string comparison); an unsigned one's parameters are taken as
// they come, its `client_id` and `expected_origins` ignored. Key bindings name `origin:<origin>`
// (A.4, even for signed requests); mdocs are device-signed over the OpenID4VPDCAPIHandover
// (B.2.6.2: the origin without prefix, the nonce, the thumbprint of the key the response is
// encrypted to); the answer is `{response: <JWE>}` to the request's key (response mode
// `dc_api.jwt`, the only one this wallet answers). ISO/IEC 18013-7 Annex C (`org-iso-mdoc`) is
// annexC.ts.
import { createHash } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { compactVerify, decodeProtectedHeader, type JWK } from 'jose';
import { jwkThumbprintBytes, sessionTranscript } from '../src/mdoc/sessionTranscript.js';
import type { DcApiWallet } from './dcApiWallet.js';
import { findTrustAnchor, parseX5c, validateChain } from '../src/trust/x509Chain.js';
import { answerAnnexC } from './annexC.js';
import { heldOf, select } from './dcql.js';
import { deviceResponseBytes, mdocDocument, readIssuerSigned } from './mdoc.js';
import { buildVpToken, disclosedFor, encryptResponse, type CredentialQuery, type CredentialSetQuery } from './presentation.js';
import { claimsOf } from './sdJwt.js';
import { x5cLeaf } from './x5c.js';

/** One entry of `navigator.credentials.get({digital: {requests}})`. */
export interface DcApiRequest {
  readonly protocol: string;
  readonly data: unknown;
}

/** What the page forwards to its backend: the browser's `{protocol, data}` and the page's origin. */
export interface DcApiAnswer {
  readonly origin: string;
  readonly protocol: string;
  readonly data: { readonly response: string };
}

/** The protocols this wallet answers. */
export const DC_API_PROTOCOLS = ['openid4vp-v1-signed', 'openid4vp-v1-unsigned', 'org-iso-mdoc'] as const;
type Protocol = (typeof DC_API_PROTOCOLS)[number];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first request (of one, or of an array in the page's order) whose protocol this wallet answers. */
export const chooseRequest = (requests: unknown): DcApiRequest & { readonly protocol: Protocol } => {
  const entries = Array.isArray(requests) ? requests : [requests];
  if (entries.length === 0 || !entries.every((e) => isRecord(e) && typeof e['protocol'] === 'string' && 'data' in e)) {
    throw new Error('not a dc_api_request: a {protocol, data} object or an array of them');
  }
  const supported = (entries as DcApiRequest[]).find((e): e is DcApiRequest & { protocol: Protocol } => (DC_API_PROTOCOLS as readonly string[]).includes(e.protocol));
  if (supported === undefined) {
    throw new Error(`none of the protocols ${entries.map((e) => (e as DcApiRequest).protocol).join(', ')} is one this wallet answers (${DC_API_PROTOCOLS.join(', ')})`);
  }
  return supported;
};

const CONTENT_ENCRYPTION = ['A128GCM', 'A256GCM'] as const;

/** An OpenID4VP request over the DC API, its parameters checked. */
interface DcApiAuthorizationRequest {
  readonly parameters: Record<string, unknown>;
  /** `x509_hash:…` for a signed request; `origin:<origin>` for an unsigned one (A.2). */
  readonly clientId: string;
  readonly nonce: string;
  readonly encryptionKey: JWK;
  readonly enc: (typeof CONTENT_ENCRYPTION)[number];
  readonly transactionData: readonly string[];
  readonly credentialQueries: readonly CredentialQuery[];
  readonly credentialSets?: readonly CredentialSetQuery[];
}

const sha256Base64url = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url');

/** A signed request's parameters, once its signature, certificate chain, client_id and expected_origins hold. */
const verifySignedRequest = async (data: unknown, wallet: DcApiWallet): Promise<Record<string, unknown>> => {
  const jwt = isRecord(data) ? data['request'] : undefined;
  if (typeof jwt !== 'string') throw new Error('openid4vp-v1-signed: data.request is not a request object');
  const header = decodeProtectedHeader(jwt) as Record<string, unknown>;
  if (header['typ'] !== 'oauth-authz-req+jwt' || header['alg'] !== 'ES256') throw new Error('request object: wrong typ or alg');
  const leaf = x5cLeaf(header);
  if (wallet.trustAnchors !== undefined) {
    const now = wallet.now ?? new Date();
    const chain = parseX5c(header['x5c']);
    if (isLeft(chain)) throw new Error(`request object: ${chain.left}`);
    const valid = await validateChain(chain.right, now);
    if (isLeft(valid)) throw new Error(`request object: ${valid.left}`);
    if ((await findTrustAnchor(chain.right, wallet.trustAnchors, now)) === undefined) throw new Error("request object: its x5c chain leads to none of the wallet's trust anchors");
  }
  const { payload: bytes } = await compactVerify(jwt, leaf.publicKey, { algorithms: ['ES256'] }).catch(() => {
    throw new Error('request object: the signature does not verify with the x5c leaf');
  });
  const payload: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (!isRecord(payload)) throw new Error('request object: the payload is not an object');
  if (payload['client_id'] !== `x509_hash:${sha256Base64url(leaf.raw)}`) throw new Error('request object: client_id is not the x509_hash of the x5c leaf');
  if (typeof payload['exp'] === 'number' && payload['exp'] * 1000 <= (wallet.now ?? new Date()).getTime()) throw new Error('request object: expired');
  const origins = payload['expected_origins'];
  if (!Array.isArray(origins) || origins.length === 0 || !origins.every((o) => typeof o === 'string')) throw new Error('request object: expected_origins missing or not an array of strings');
  if (!origins.includes(wallet.origin)) throw new Error(`invalid_request: the origin ${wallet.origin} is not among the request's expected_origins (${origins.join(', ')})`);
  return payload;
};

/** The encryption key the wallet picks (A.2, 8.3): for encryption (`use` absent or `enc`), ECDH-ES on P-256. */
const encryptionKeyOf = (metadata: Record<string, unknown>): JWK => {
  const keys = isRecord(metadata['jwks']) ? metadata['jwks']['keys'] : undefined;
  const key = Array.isArray(keys)
    ? (keys as unknown[]).find((k): k is JWK => isRecord(k) && (k['use'] === undefined || k['use'] === 'enc') && k['kty'] === 'EC' && k['crv'] === 'P-256' && k['alg'] === 'ECDH-ES')
    : undefined;
  if (key === undefined) throw new Error('client_metadata: no ECDH-ES P-256 key for encrypting the response');
  return key;
};

const checkParameters = (parameters: Record<string, unknown>, clientId: string): DcApiAuthorizationRequest => {
  if (parameters['response_type'] !== 'vp_token') throw new Error('request: response_type is not vp_token');
  if (parameters['response_mode'] !== 'dc_api.jwt') throw new Error(`request: response_mode ${String(parameters['response_mode'])}; this wallet answers only encrypted responses (dc_api.jwt)`);
  const nonce = parameters['nonce'];
  if (typeof nonce !== 'string' || nonce === '') throw new Error('request: no nonce');
  const metadata = parameters['client_metadata'];
  if (!isRecord(metadata)) throw new Error('request: no client_metadata');
  const offered = metadata['encrypted_response_enc_values_supported'] ?? ['A128GCM'];
  const enc = CONTENT_ENCRYPTION.find((e) => Array.isArray(offered) && offered.includes(e));
  if (enc === undefined) throw new Error(`client_metadata: none of the content encryptions ${JSON.stringify(offered)} is one this wallet has`);
  const dcql = parameters['dcql_query'];
  if (!isRecord(dcql) || !Array.isArray(dcql['credentials'])) throw new Error('request: no dcql_query');
  const transactionData = parameters['transaction_data'] ?? [];
  if (!Array.isArray(transactionData) || !transactionData.every((t) => typeof t === 'string')) throw new Error('request: transaction_data is not an array of strings');
  return {
    parameters,
    clientId,
    nonce,
    encryptionKey: encryptionKeyOf(metadata),
    enc,
    transactionData,
    credentialQueries: dcql['credentials'] as CredentialQuery[],
    ...(Array.isArray(dcql['credential_sets']) ? { credentialSets: dcql['credential_sets'] as CredentialSetQuery[] } : {}),
  };
};

/** The OpenID4VP answer's `data`: `{response: <JWE>}` holding the vp_token. */
const answerOpenID4VP = async (protocol: 'openid4vp-v1-signed' | 'openid4vp-v1-unsigned', data: unknown, wallet: DcApiWallet): Promise<{ response: string }> => {
  const say = wallet.say ?? (() => undefined);
  let request: DcApiAuthorizationRequest;
  if (protocol === 'openid4vp-v1-signed') {
    const payload = await verifySignedRequest(data, wallet);
    request = checkParameters(payload, String(payload['client_id']));
    const anchored = wallet.trustAnchors === undefined ? 'any chain trusted (no --trust-anchors)' : "its x5c chain anchored in the wallet's trust anchors";
    say(`request object verified: ES256 by the x5c leaf, client_id ${request.clientId} its x509_hash, ${anchored}; ${wallet.origin} is among its expected_origins`);
  } else {
    if (!isRecord(data)) throw new Error('openid4vp-v1-unsigned: data is not the request parameters');
    request = checkParameters(data, `origin:${wallet.origin}`);
    say(`unsigned request: the effective client id is ${request.clientId}`);
  }
  const { held, heldMdocs } = heldOf(wallet.credentials);
  const { holdings, mdocs, missing } = select(request, held, { keys: { privateKey: wallet.holderKey.privateKey } }, heldMdocs);
  if (missing.length > 0) throw new Error(`cannot answer this request: ${missing.join('; ')}`);
  const bend = wallet.bend ?? {};
  const audience = bend.audience ?? `origin:${wallet.origin}`;
  for (const [id, holding] of Object.entries(holdings)) {
    const query = request.credentialQueries.find((q) => q.id === id)!;
    say(`query "${id}": ${String(claimsOf(holding.credential)['vct'])}, disclosing ${disclosedFor(query, holding.credential).join(', ')}; KB-JWT aud ${audience}, the request's nonce`);
  }
  const vpToken: Record<string, string[]> = await buildVpToken(request, holdings, audience);
  const transcript = sessionTranscript({ origin: bend.handoverOrigin ?? wallet.origin, nonce: bend.handoverNonce ?? request.nonce, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) });
  for (const [id, { mdoc, disclose }] of Object.entries(mdocs)) {
    say(`query "${id}": an mdoc ${mdoc.doctype}, disclosing ${disclose.map(([ns, element]) => `${ns}/${element}`).join(', ')}; device-signed over the OpenID4VPDCAPIHandover (origin, nonce, key thumbprint)`);
    const document = mdocDocument(readIssuerSigned(mdoc.credential), { docType: mdoc.doctype, disclose, deviceKey: wallet.holderKey.privateKey }, transcript);
    vpToken[id] = [Buffer.from(deviceResponseBytes([document])).toString('base64url')];
  }
  const response = await encryptResponse(request, { vp_token: vpToken }, { enc: request.enc, ...(bend.encryptTo === undefined ? {} : { key: bend.encryptTo }) });
  say(`response encrypted to the request's key (ECDH-ES, ${request.enc}): dc_api.jwt`);
  return { response };
};

/** What the browser returns to the page for `requests` (one `{protocol, data}` or an array): the chosen protocol and its answer. */
export const answerDcApiRequest = async (requests: unknown, wallet: DcApiWallet): Promise<DcApiAnswer> => {
  const origin = URL.canParse(wallet.origin) ? new URL(wallet.origin).origin : undefined;
  if (origin !== wallet.origin) throw new Error(`${wallet.origin} is not an origin (scheme://host[:port], no path)`);
  const { protocol, data } = chooseRequest(requests);
  wallet.say?.(`the browser hands the wallet a ${protocol} request from ${origin}`);
  const answer = protocol === 'org-iso-mdoc' ? await answerAnnexC(data, wallet) : await answerOpenID4VP(protocol, data, wallet);
  return { origin, protocol, data: answer };
};
