// The wallet's authorization code flow (OpenID4VCI section 5 under HAIP 1.0): a pushed
// authorization request authenticated by its wallet attestation, with PKCE S256 and the offer's
// issuer_state; the authorization URL for the user's browser; then the code from the redirect
// redeemed at the token endpoint with the attestation again and a DPoP proof carrying the server's
// nonce (learnt from a use_dpop_nonce answer, then from each DPoP-Nonce header), and the credential.
import { createHash, randomBytes } from 'node:crypto';
import { fetchJson, type WalletResponse } from './http.js';
import { dpopProof, type WalletKey } from './keys.js';
import { IssuanceWallet, type CredentialOffer } from './issuance.js';
import { checkIssuedCredential } from './sdJwt.js';
import { attestationPop } from './walletProvider.js';

/** The wallet instance as its provider attested it. */
export interface AttestedClient {
  readonly clientId: string;
  /** The wallet attestation JWT from the wallet provider. */
  readonly attestation: string;
  /** The key the attestation binds (`cnf.jwk`): it signs each PoP. */
  readonly instanceKey: WalletKey;
}

/** What the wallet keeps between sending the user to authenticate and getting the code back. */
export interface PendingAuthorization {
  readonly authorizationUrl: string;
  readonly codeVerifier: string;
  readonly state: string;
  readonly redirectUri: string;
  readonly credentialConfigurationId: string;
}

export class AuthorizationCodeWallet extends IssuanceWallet {
  private dpopNonce: string | undefined;

  private async attestationHeaders(client: AttestedClient): Promise<Record<string, string>> {
    return {
      'OAuth-Client-Attestation': client.attestation,
      'OAuth-Client-Attestation-PoP': await attestationPop(client.instanceKey, { clientId: client.clientId, audience: this.endpoints.authorizationServer }),
    };
  }

  private remember(response: WalletResponse<unknown>): void {
    this.dpopNonce = response.headers.get('dpop-nonce') ?? this.dpopNonce;
  }

  /** Pushes the authorization request; the answer's authorization URL is for the user's browser. */
  async start(offer: CredentialOffer, client: AttestedClient, redirectUri: string): Promise<PendingAuthorization> {
    const issuerState = (offer.grants as { authorization_code?: { issuer_state?: string } }).authorization_code?.issuer_state;
    if (issuerState === undefined) throw new Error('the offer has no authorization_code grant');
    const codeVerifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const [credentialConfigurationId] = offer.credential_configuration_ids;
    const form = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      issuer_state: issuerState,
      state,
      scope: credentialConfigurationId!,
    });
    const { pushedAuthorizationRequestEndpoint: par, authorizationEndpoint: authorize } = this.endpoints;
    if (par === undefined || authorize === undefined) throw new Error(`the authorization server ${this.endpoints.authorizationServer} names no pushed authorization request or authorization endpoint`);
    const pushed = await fetchJson<{ request_uri: string }>(this.fetch, par, {
      method: 'POST',
      // A DPoP proof at PAR binds the code to the wallet's DPoP key (RFC 9449 section 10.1).
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: await dpopProof(this.dpopKey, { htm: 'POST', htu: par }), ...(await this.attestationHeaders(client)) },
      body: form.toString(),
    });
    if (pushed.status !== 201) throw new Error(`pushed authorization request: ${pushed.status} ${JSON.stringify(pushed.body)}`);
    const authorizationUrl = `${authorize}?${new URLSearchParams({ client_id: client.clientId, request_uri: pushed.body.request_uri })}`;
    return { authorizationUrl, codeVerifier, state, redirectUri, credentialConfigurationId: credentialConfigurationId! };
  }

  /** The code from the redirect back to the wallet, after checking its `state` and `iss` (RFC 9207). */
  codeFrom(pending: PendingAuthorization, redirectedTo: string): string {
    const params = new URL(redirectedTo).searchParams;
    if (params.get('state') !== pending.state) throw new Error('the authorization response is not for this request (state)');
    const server = this.endpoints.authorizationServer;
    if (params.get('iss') !== server) throw new Error(`the authorization response is from ${params.get('iss')}, not ${server}`);
    const error = params.get('error');
    if (error !== null) throw new Error(`authorization refused: ${error}${params.has('error_description') ? ` (${params.get('error_description')})` : ''}`);
    const code = params.get('code');
    if (code === null) throw new Error('the authorization response has no code');
    return code;
  }

  /** The token request with the code; a use_dpop_nonce answer is retried once with its nonce. */
  async tokenWithCode(pending: PendingAuthorization, client: AttestedClient, code: string): Promise<WalletResponse> {
    for (let attempt = 0; ; attempt++) {
      const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: pending.codeVerifier, redirect_uri: pending.redirectUri, client_id: client.clientId });
      const proof = await dpopProof(this.dpopKey, { htm: 'POST', htu: this.tokenUrl, ...(this.dpopNonce === undefined ? {} : { nonce: this.dpopNonce }) });
      const answer = await fetchJson<Record<string, unknown>>(this.fetch, this.tokenUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', DPoP: proof, ...(await this.attestationHeaders(client)) },
        body: form.toString(),
      });
      this.remember(answer);
      if (answer.status === 400 && answer.body['error'] === 'use_dpop_nonce' && attempt === 0) continue;
      return answer;
    }
  }

  /** From the code to the checked credential, reporting each step to `step`. */
  async finish(pending: PendingAuthorization, client: AttestedClient, code: string, step: (done: string) => void = () => {}): Promise<string> {
    const token = await this.tokenWithCode(pending, client, code);
    if (token.status !== 200) throw new Error(`token: ${token.status} ${JSON.stringify(token.body)}`);
    step(`token endpoint: PKCE, wallet attestation and a DPoP proof with the server's nonce; a ${String(token.body['token_type'])}-bound access token`);
    const accessToken = String(token.body['access_token']);
    const keyProof = await this.keyProof({ nonce: await this.nonce() });
    const proof = await dpopProof(this.dpopKey, { htm: 'POST', htu: this.credentialUrl, accessToken, ...(this.dpopNonce === undefined ? {} : { nonce: this.dpopNonce }) });
    const credential = await this.credential(accessToken, { credential_configuration_id: pending.credentialConfigurationId, proofs: { jwt: [keyProof] } }, { dpop: proof });
    this.remember(credential);
    if (credential.status !== 200) throw new Error(`credential: ${credential.status} ${JSON.stringify(credential.body)}`);
    const [first] = credential.body['credentials'] as { credential: string }[];
    await checkIssuedCredential(first!.credential, { issuer: this.issuer, holder: this.holderKey.publicJwk });
    step('credential endpoint: an SD-JWT VC, signed by its x5c leaf, bound to the holder key');
    return first!.credential;
  }
}
