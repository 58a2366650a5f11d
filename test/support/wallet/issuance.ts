// The test wallet's issuance half (OpenID4VCI pre-authorized code flow): resolve the offer, read
// the metadata, get a DPoP-bound token (with tx_code), a c_nonce, prove the key, get the
// credential. Every step is its own call with overridable inputs, so tests can break one at a time.
// URLs are taken from the documents the issuer serves (PUBLIC_URL) and fetched through the
// service's real listen address.
import { SignJWT, type JWK } from 'jose';
import { dpopProof, newWalletKey, type WalletKey } from './keys.js';
import { documentedFetch } from '../openapi.js';

export interface CredentialOffer {
  readonly credential_issuer: string;
  readonly credential_configuration_ids: readonly string[];
  readonly grants: {
    readonly 'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
      readonly 'pre-authorized_code': string;
      readonly tx_code?: { readonly input_mode: string; readonly length: number; readonly description?: string };
    };
  };
}

export interface WalletResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface KeyProofOptions {
  readonly aud?: string;
  readonly nonce?: string | null;
  readonly iat?: number;
  readonly typ?: string;
  /** The key put in the header, when it should differ from the signing key. */
  readonly headerJwk?: JWK;
}

export const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

export class IssuanceWallet {
  /** The key the DPoP proofs are signed with. */
  readonly dpopKey: WalletKey;
  /** The key the credential is bound to. */
  readonly holderKey: WalletKey;

  private constructor(
    private readonly publicUrl: string,
    private readonly listenUrl: string,
    keys: { dpop: WalletKey; holder: WalletKey },
  ) {
    this.dpopKey = keys.dpop;
    this.holderKey = keys.holder;
  }

  static async create(publicUrl: string, listenUrl: string): Promise<IssuanceWallet> {
    return new IssuanceWallet(publicUrl, listenUrl, { dpop: await newWalletKey(), holder: await newWalletKey() });
  }

  /** The same wallet (same keys) talking to another instance or a restarted service. */
  at(listenUrl: string): IssuanceWallet {
    return new IssuanceWallet(this.publicUrl, listenUrl, { dpop: this.dpopKey, holder: this.holderKey });
  }

  /** fetch a URL the issuer handed out, through the listener it is really served on. */
  fetch(url: string, init?: RequestInit): Promise<Response> {
    if (!url.startsWith(this.publicUrl)) throw new Error(`${url} is not under ${this.publicUrl}`);
    return documentedFetch('public')(`${this.listenUrl}${url.slice(this.publicUrl.length)}`, init);
  }

  private async json<T>(url: string, init?: RequestInit): Promise<WalletResponse<T>> {
    const response = await this.fetch(url, init);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text === '' ? {} : JSON.parse(text)) as T };
  }

  get tokenUrl(): string {
    return `${this.publicUrl}/oidc4vci/token`;
  }

  get credentialUrl(): string {
    return `${this.publicUrl}/oidc4vci/credential`;
  }

  /** The offer URL inside an `openid-credential-offer://` URI. */
  static offerUrl(credentialOfferUri: string): string {
    const url = new URL(credentialOfferUri);
    if (url.protocol !== 'openid-credential-offer:') throw new Error(`not a credential offer URI: ${credentialOfferUri}`);
    const inner = url.searchParams.get('credential_offer_uri');
    if (!inner) throw new Error('credential_offer_uri missing');
    return inner;
  }

  resolveOffer(credentialOfferUri: string): Promise<WalletResponse<CredentialOffer>> {
    return this.json<CredentialOffer>(IssuanceWallet.offerUrl(credentialOfferUri));
  }

  async token(
    preAuthorizedCode: string,
    options: { txCode?: string; dpop?: string | null; extra?: Record<string, string> } = {},
  ): Promise<WalletResponse> {
    const form = new URLSearchParams({ grant_type: PRE_AUTHORIZED, 'pre-authorized_code': preAuthorizedCode, ...options.extra });
    if (options.txCode !== undefined) form.set('tx_code', options.txCode);
    const proof = options.dpop === undefined ? await dpopProof(this.dpopKey, { htm: 'POST', htu: this.tokenUrl }) : options.dpop;
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (proof !== null) headers['DPoP'] = proof;
    return this.json(this.tokenUrl, { method: 'POST', headers, body: form.toString() });
  }

  async nonce(): Promise<string> {
    const response = await this.json<{ c_nonce: string }>(`${this.publicUrl}/oidc4vci/nonce`, { method: 'POST' });
    if (response.status !== 200) throw new Error(`nonce endpoint answered ${response.status}`);
    return response.body.c_nonce;
  }

  keyProof(options: KeyProofOptions = {}): Promise<string> {
    return new SignJWT({
      aud: options.aud ?? this.publicUrl,
      iat: options.iat ?? Math.floor(Date.now() / 1000),
      ...(options.nonce === null || options.nonce === undefined ? {} : { nonce: options.nonce }),
    })
      .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'openid4vci-proof+jwt', jwk: options.headerJwk ?? this.holderKey.publicJwk })
      .sign(this.holderKey.privateKey);
  }

  async credential(
    accessToken: string,
    request: Record<string, unknown>,
    options: { dpop?: string | null; authorization?: string; query?: string } = {},
  ): Promise<WalletResponse> {
    const proof = options.dpop === undefined ? await dpopProof(this.dpopKey, { htm: 'POST', htu: this.credentialUrl, accessToken }) : options.dpop;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Authorization: options.authorization ?? `DPoP ${accessToken}`,
    };
    if (proof !== null) headers['DPoP'] = proof;
    return this.json(`${this.credentialUrl}${options.query ?? ''}`, { method: 'POST', headers, body: JSON.stringify(request) });
  }

  /** The whole flow from the offer URI to the credential; throws at the first step that fails. */
  async receive(credentialOfferUri: string, txCode?: string): Promise<string> {
    const offer = await this.resolveOffer(credentialOfferUri);
    if (offer.status !== 200) throw new Error(`offer: ${offer.status} ${JSON.stringify(offer.body)}`);
    const grant = offer.body.grants[PRE_AUTHORIZED];
    const token = await this.token(grant['pre-authorized_code'], txCode === undefined ? {} : { txCode });
    if (token.status !== 200) throw new Error(`token: ${token.status} ${JSON.stringify(token.body)}`);
    const accessToken = String(token.body['access_token']);
    const proof = await this.keyProof({ nonce: await this.nonce() });
    const credential = await this.credential(accessToken, {
      credential_configuration_id: offer.body.credential_configuration_ids[0],
      proofs: { jwt: [proof] },
    });
    if (credential.status !== 200) throw new Error(`credential: ${credential.status} ${JSON.stringify(credential.body)}`);
    const [first] = credential.body['credentials'] as { credential: string }[];
    return first!.credential;
  }
}
