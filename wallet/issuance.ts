// The wallet's issuance half (OpenID4VCI pre-authorized code flow): resolve the offer, get a
// DPoP-bound token (with tx_code), a c_nonce, prove the key, get the credential and check it.
// Every step is its own call with overridable inputs, so tests can break one at a time. One
// wallet talks to one credential issuer (the offer's `credential_issuer`), at the endpoints its
// metadata names (issuerMetadata.ts).
import { SignJWT, type JWK } from 'jose';
import { fetchJson, type Fetch, type WalletResponse } from './http.js';
import { dpopProof, type WalletKey } from './keys.js';
import { checkIssuedMdoc } from './mdoc.js';
import { checkIssuedCredential } from './sdJwt.js';
import type { IssuerEndpoints } from './issuerMetadata.js';
import { ownValue } from '../src/ownProperty.js';

export interface TxCode {
  readonly input_mode: string;
  readonly length: number;
  readonly description?: string;
}

export interface CredentialOffer {
  readonly credential_issuer: string;
  readonly credential_configuration_ids: readonly string[];
  readonly grants: {
    readonly 'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
      readonly 'pre-authorized_code': string;
      readonly tx_code?: TxCode;
    };
  };
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

/** The offer URL inside an `openid-credential-offer://` URI. */
const offerUrl = (credentialOfferUri: string): string => {
  const url = new URL(credentialOfferUri);
  if (url.protocol !== 'openid-credential-offer:') throw new Error('not an openid-credential-offer:// URI');
  const inner = url.searchParams.get('credential_offer_uri');
  if (!inner) throw new Error('credential_offer_uri missing');
  return inner;
};

/** The credential offer an `openid-credential-offer://` URI points at. */
export const fetchCredentialOffer = (fetch: Fetch, credentialOfferUri: string): Promise<WalletResponse<CredentialOffer>> =>
  fetchJson<CredentialOffer>(fetch, offerUrl(credentialOfferUri));

export interface IssuanceKeys {
  /** The key the DPoP proofs are signed with. */
  readonly dpop: WalletKey;
  /** The key the credential is bound to. */
  readonly holder: WalletKey;
}

export class IssuanceWallet {
  readonly dpopKey: WalletKey;
  readonly holderKey: WalletKey;

  /** `endpoints`: what the issuer's metadata names (discoverIssuer); `fetch` is how the wallet reaches it. */
  constructor(
    readonly endpoints: IssuerEndpoints,
    readonly fetch: Fetch,
    keys: IssuanceKeys,
  ) {
    this.dpopKey = keys.dpop;
    this.holderKey = keys.holder;
  }

  /** The credential issuer identifier. */
  get issuer(): string {
    return this.endpoints.credentialIssuer;
  }

  private json<T>(url: string, init?: RequestInit): Promise<WalletResponse<T>> {
    return fetchJson<T>(this.fetch, url, init);
  }

  get tokenUrl(): string {
    return this.endpoints.tokenEndpoint;
  }

  get credentialUrl(): string {
    return this.endpoints.credentialEndpoint;
  }

  resolveOffer(credentialOfferUri: string): Promise<WalletResponse<CredentialOffer>> {
    return fetchCredentialOffer(this.fetch, credentialOfferUri);
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

  /** What the issuer's metadata says of a credential configuration (its format, doctype...). */
  async configuration(id: string): Promise<Record<string, unknown>> {
    const metadata = await this.json<{ credential_configurations_supported?: Record<string, Record<string, unknown>> }>(this.endpoints.metadataUrl);
    const supported = metadata.body.credential_configurations_supported;
    const configuration = supported === undefined ? undefined : ownValue(supported, id);
    if (metadata.status !== 200 || configuration === undefined) throw new Error(`the issuer's metadata does not describe ${id}`);
    return configuration;
  }

  async nonce(): Promise<string> {
    const response = await this.json<{ c_nonce: string }>(this.endpoints.nonceEndpoint, { method: 'POST' });
    if (response.status !== 200) throw new Error(`nonce endpoint answered ${response.status}`);
    return response.body.c_nonce;
  }

  keyProof(options: KeyProofOptions = {}): Promise<string> {
    return new SignJWT({
      aud: options.aud ?? this.issuer,
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

  /**
   * From a resolved offer to the checked credential (checkIssuedCredential), reporting each step
   * done to `step`; throws at the first step that fails.
   */
  async redeem(offer: CredentialOffer, options: { txCode?: string; step?: (done: string) => void } = {}): Promise<string> {
    const step = options.step ?? (() => {});
    if (offer.credential_issuer !== this.issuer) throw new Error(`the offer is from ${offer.credential_issuer}, not ${this.issuer}`);
    const grant = offer.grants?.[PRE_AUTHORIZED];
    if (grant === undefined) throw new Error('the offer has no pre-authorized code grant');
    const token = await this.token(grant['pre-authorized_code'], options.txCode === undefined ? {} : { txCode: options.txCode });
    if (token.status !== 200) throw new Error(`token: ${token.status} ${JSON.stringify(token.body)}`);
    step(`token endpoint: a ${String(token.body['token_type'])}-bound access token, valid ${String(token.body['expires_in'])} s`);
    const accessToken = String(token.body['access_token']);
    const proof = await this.keyProof({ nonce: await this.nonce() });
    step('nonce endpoint: a c_nonce; key proof signed with the holder key');
    const configurationId = offer.credential_configuration_ids[0];
    const credential = await this.credential(accessToken, {
      credential_configuration_id: configurationId,
      proofs: { jwt: [proof] },
    });
    if (credential.status !== 200) throw new Error(`credential: ${credential.status} ${JSON.stringify(credential.body)}`);
    const [first] = credential.body['credentials'] as { credential: string }[];
    const configuration = await this.configuration(configurationId ?? '');
    if (configuration.format === 'mso_mdoc') {
      await checkIssuedMdoc(first!.credential, { docType: String(configuration.doctype), holder: this.holderKey.publicJwk });
      step(`credential endpoint: an mdoc (${String(configuration.doctype)}), signed by its x5chain leaf, every digest matching, bound to the holder key`);
    } else {
      await checkIssuedCredential(first!.credential, { issuer: this.issuer, holder: this.holderKey.publicJwk });
      step('credential endpoint: an SD-JWT VC, signed by its x5c leaf, bound to the holder key');
    }
    return first!.credential;
  }

  /** The whole flow from the offer URI to the credential; throws at the first step that fails. */
  async receive(credentialOfferUri: string, txCode?: string): Promise<string> {
    const offer = await this.resolveOffer(credentialOfferUri);
    if (offer.status !== 200) throw new Error(`offer: ${offer.status} ${JSON.stringify(offer.body)}`);
    return this.redeem(offer.body, txCode === undefined ? {} : { txCode });
  }
}
