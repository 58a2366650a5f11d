// What the wallet does for a person: accept a credential offer into its file, and present what it
// holds to a presentation request (by openid4vp:// URI, or over the Digital Credentials API). The command line (cli.ts) and the demo (demo/) both run these,
// with `say` printing each step.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { certificatesFromPem } from '../src/crypto/certificates.js';
import { answerDcApiRequest, type DcApiAnswer } from './dcApi.js';
import { heldOf, select } from './dcql.js';
import type { Fetch } from './http.js';
import { AuthorizationCodeWallet } from './authorizationCode.js';
import { fetchCredentialOffer, IssuanceWallet, PRE_AUTHORIZED, type CredentialOffer } from './issuance.js';
import { discoverIssuer } from './issuerMetadata.js';
import { listenForRedirect } from './redirectListener.js';
import { localWalletProvider, walletAttestation } from './walletProvider.js';
import { newWalletKey } from './keys.js';
import { checkIssuedMdoc, presentMdoc, readIssuerSigned } from './mdoc.js';
import { buildVpToken, disclosedFor, encryptResponse, fetchAuthorizationRequest, parseRequestUri, postResponse, type PostedResponse } from './presentation.js';
import { jwkThumbprintBytes } from '../src/mdoc/sessionTranscript.js';
import { claimsOf, holdCredential } from './sdJwt.js';
import { showJson, showSubject } from './show.js';
import { WalletFile, type StoredCredential } from './store.js';
import { x5cLeaf } from './x5c.js';

export type Say = (line: string) => void;

export interface WalletCommandOptions {
  /** The wallet file (store.ts). */
  readonly file: string;
  readonly say: Say;
  /** How the wallet reaches the connector; the global fetch by default. */
  readonly fetch?: Fetch;
}

export interface AuthorizationOptions {
  /** The wallet provider file (walletProvider.ts): its attestation authenticates the wallet. */
  readonly providerFile: string;
  /** Shows the user the authorization URL (prints it, or a test or the demo follows it). */
  readonly authenticate: (authorizationUrl: string) => Promise<void> | void;
  /** How long to wait for the browser to come back. */
  readonly timeoutMs?: number;
}

/** The authorization code flow: attested by the local wallet provider, the user sent to authenticate, the code taken at a loopback redirect. */
const receiveWithAuthorization = async (
  issuance: AuthorizationCodeWallet,
  offer: CredentialOffer,
  options: AuthorizationOptions & { readonly say: Say },
): Promise<string> => {
  const provider = await localWalletProvider(options.providerFile);
  const instanceKey = await newWalletKey();
  const clientId = `wallet-simulator-${randomBytes(6).toString('hex')}`;
  const client = { clientId, instanceKey, attestation: await walletAttestation(provider, { clientId, instanceJwk: instanceKey.publicJwk, walletName: 'Connector wallet simulator' }) };
  const listener = await listenForRedirect(options.timeoutMs ?? 600_000);
  try {
    const pending = await issuance.start(offer, client, listener.redirectUri);
    options.say(`pushed authorization request accepted (wallet attestation by ${provider.issuer}, PKCE S256); authenticate at:\n${pending.authorizationUrl}`);
    await options.authenticate(pending.authorizationUrl);
    const code = issuance.codeFrom(pending, await listener.response);
    options.say('authorization response: a code, state and iss as expected');
    return await issuance.finish(pending, client, code, options.say);
  } finally {
    listener.close();
  }
};

/** Takes the credential an `openid-credential-offer://` URI offers and keeps it in the wallet file. */
export const acceptOffer = async (
  offerUri: string,
  options: WalletCommandOptions & { readonly txCode?: string; readonly authorization?: AuthorizationOptions },
): Promise<StoredCredential> => {
  const { say } = options;
  const fetch = options.fetch ?? globalThis.fetch;
  const wallet = await WalletFile.open(options.file);
  const offer = await fetchCredentialOffer(fetch, offerUri);
  if (offer.status !== 200) throw new Error(`the credential offer answered ${offer.status}: ${JSON.stringify(offer.body)}`);
  const issuer = offer.body.credential_issuer;
  say(`credential offer from ${issuer}: ${offer.body.credential_configuration_ids.join(', ')}`);
  const authorizationCode = 'authorization_code' in (offer.body.grants ?? {});
  const txCode = offer.body.grants?.[PRE_AUTHORIZED]?.tx_code;
  if (txCode !== undefined && options.txCode === undefined) {
    const description = txCode.description === undefined ? '' : ` "${txCode.description}"`;
    throw new Error(`the offer needs a transaction code${description} (${txCode.input_mode}, ${txCode.length} characters): pass --tx-code`);
  }
  if (txCode === undefined && options.txCode !== undefined) throw new Error('the offer needs no transaction code; leave out --tx-code');
  const keys = { dpop: await newWalletKey(), holder: wallet.holderKey };
  const endpoints = await discoverIssuer(fetch, issuer);
  say(`issuer metadata at ${endpoints.metadataUrl}: credential endpoint ${endpoints.credentialEndpoint}, token endpoint ${endpoints.tokenEndpoint} (authorization server ${endpoints.authorizationServer})`);
  const issuance = new IssuanceWallet(endpoints, fetch, keys);
  let credential: string;
  if (authorizationCode) {
    if (options.authorization === undefined) throw new Error('the offer uses the authorization code flow: the wallet needs its wallet provider');
    credential = await receiveWithAuthorization(new AuthorizationCodeWallet(endpoints, fetch, keys), offer.body, { ...options.authorization, say });
  } else {
    credential = await issuance.redeem(offer.body, { ...(options.txCode === undefined ? {} : { txCode: options.txCode }), step: say });
  }
  const configuration = await issuance.configuration(offer.body.credential_configuration_ids[0] ?? '');
  if (configuration.format === 'mso_mdoc') {
    const doctype = String(configuration.doctype);
    const elements = await checkIssuedMdoc(credential, { docType: doctype, holder: wallet.holderKey.publicJwk });
    const stored = { credential, format: 'mso_mdoc' as const, doctype, issuer, received_at: new Date().toISOString() };
    await wallet.add(stored);
    say(`kept in ${options.file}: an mdoc ${doctype}, elements ${Object.entries(elements).flatMap(([ns, e]) => Object.keys(e).map((name) => `${ns}/${name}`)).join(', ')}`);
    return stored;
  }
  const held = holdCredential(credential);
  const stored = { credential, issuer, vct: String(claimsOf(held)['vct']), received_at: new Date().toISOString() };
  await wallet.add(stored);
  say(`kept in ${options.file}: ${stored.vct}, selectively disclosable: ${Object.keys(held.disclosures).join(', ')}`);
  return stored;
};

/**
 * Answers an `openid4vp://` presentation request: verifies the request object, finds credentials
 * for its DCQL query, presents them with key binding and posts the encrypted response. Nothing is
 * sent when the request object does not verify or the wallet has nothing to answer with.
 */
export const presentCredentials = async (requestUri: string, options: WalletCommandOptions): Promise<PostedResponse> => {
  const { say } = options;
  const fetch = options.fetch ?? globalThis.fetch;
  const wallet = await WalletFile.open(options.file);
  if (wallet.credentials.length === 0) throw new Error(`${options.file} holds no credentials: accept an offer first`);
  const post = parseRequestUri(requestUri).requestUriMethod === 'post';
  const request = await fetchAuthorizationRequest(fetch, requestUri, post ? { method: 'post', walletNonce: randomBytes(16).toString('base64url') } : {});
  say(`request object verified: ES256 signature by the x5c leaf (${showSubject(x5cLeaf(request.header).subject)}), client_id is the x509_hash of that leaf`);
  say(`request object header:\n${showJson(request.header)}`);
  say(`request object claims:\n${showJson(request.payload)}`);
  const { held, heldMdocs } = heldOf(wallet.credentials);
  const { holdings, mdocs, missing } = select(request, held, { keys: { privateKey: wallet.holderKey.privateKey } }, heldMdocs);
  if (missing.length > 0) throw new Error(`cannot answer this request: ${missing.join('; ')}`);
  for (const [id, holding] of Object.entries(holdings)) {
    const query = request.credentialQueries.find((q) => q.id === id)!;
    const claims = claimsOf(holding.credential);
    say(`query "${id}": ${String(claims['vct'])} from ${String(claims['iss'])}, disclosing ${disclosedFor(query, holding.credential).join(', ')}; key binding to the request's nonce and client_id`);
  }
  const handover = { clientId: request.clientId, nonce: request.nonce, responseUri: request.responseUri, jwkThumbprint: await jwkThumbprintBytes(request.encryptionKey) };
  const vpToken: Record<string, string[]> = await buildVpToken(request, holdings);
  for (const [id, { mdoc, disclose }] of Object.entries(mdocs)) {
    say(`query "${id}": an mdoc ${mdoc.doctype}, disclosing ${disclose.map(([ns, element]) => `${ns}/${element}`).join(', ')}; device signature over the request's SessionTranscript`);
    vpToken[id] = [presentMdoc(readIssuerSigned(mdoc.credential), { docType: mdoc.doctype, disclose, deviceKey: wallet.holderKey.privateKey, handover })];
  }
  const posted = await postResponse(fetch, request, { response: await encryptResponse(request, { vp_token: vpToken, state: request.state }) });
  if (posted.status !== 200) throw new Error(`the response endpoint answered ${posted.status}: ${JSON.stringify(posted.body)}`);
  say(`response sent (direct_post.jwt, encrypted to the request's key): ${posted.status} ${JSON.stringify(posted.body)}`);
  return posted;
};

/**
 * Answers a Digital Credentials API request (`dc_api_request`: one `{protocol, data}` or an array)
 * as the browser and the wallet would for a page at `origin`: the answer is what the page forwards
 * to its backend. Nothing is answered when the request does not verify, the origin is not one it
 * expects, or the wallet has nothing to answer with.
 */
export const answerDcApi = async (
  requests: unknown,
  options: Omit<WalletCommandOptions, 'fetch'> & { readonly origin: string; readonly trustAnchorsFile?: string },
): Promise<DcApiAnswer> => {
  const wallet = await WalletFile.open(options.file);
  if (wallet.credentials.length === 0) throw new Error(`${options.file} holds no credentials: accept an offer first`);
  const trustAnchors = options.trustAnchorsFile === undefined ? undefined : certificatesFromPem(await readFile(options.trustAnchorsFile, 'utf8'));
  return answerDcApiRequest(requests, {
    origin: options.origin,
    holderKey: wallet.holderKey,
    credentials: wallet.credentials,
    say: options.say,
    ...(trustAnchors === undefined ? {} : { trustAnchors }),
  });
};
