// What every offer stream holds whichever grant it was made with (streams/offer.ts): the offer's
// facts, the wallet an attestation authenticated, an access token's binding, and the three ends
// (issued, failed, expired), which name the offer and its tenant for src/callbacks.
import * as t from 'io-ts';
import { sealedFor, sealedPurpose, type Sealed } from './dataKey.js';
import { JsonObject, type ResourceData } from './resource.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec } from './event.js';

/** The purpose an offer's claims (a JSON object of claim names to values) are sealed for, with the data key of its offer id. */
export const CLAIMS = sealedPurpose('claims', JsonObject);
/** An offer's claims, sealed. */
export const SealedClaims = sealedFor(CLAIMS);
export type Claims = ResourceData;

/** The Issuance Event statuses (the connector specification, "Issuance Event"); the offer's status is always one of them. */
export const OfferStatus = t.keyof({ OFFER_CREATED: null, ISSUED: null, FAILED: null, EXPIRED: null }, 'OfferStatus');
export type OfferStatus = t.TypeOf<typeof OfferStatus>;

export const TxCodeRequirement = t.type({
  input_mode: t.keyof({ numeric: null, text: null }),
  length: t.number,
  description: t.union([t.string, t.null]),
  /** HMAC of the code under a key outside the store (src/issuance/secrets.ts). */
  hash: t.string,
});
export type TxCodeRequirement = t.TypeOf<typeof TxCodeRequirement>;

/** The wallet as its attestation authenticated it (src/issuance/walletAttestation.ts). */
export const AttestedWallet = t.type({
  clientId: t.string,
  walletProvider: t.string,
  walletProviderCertificate: t.string,
  walletName: t.union([t.string, t.null]),
  keyThumbprint: t.string,
});
export type AttestedWallet = t.TypeOf<typeof AttestedWallet>;

/** What OfferCreated fixed for the offer's life (the claims may come at the authorization's completion). */
export interface OfferFacts {
  readonly offerId: string;
  readonly tenantId: string;
  readonly credentialConfigurationId: string;
  readonly claims: Sealed<Claims> | null;
  readonly txCode: TxCodeRequirement | null;
  readonly expiresAt: string;
  /** The tenant's own credential issuer the offer was made at; absent: the deployment's. */
  readonly credentialIssuer?: string;
  /** The revision of the tenant's configuration the offer was made with (a tenant's own issuer only). */
  readonly configurationRevision?: number;
}

/** An access token a grant issued: the hash of its secret part and the DPoP key it is bound to. */
export interface AccessToken {
  readonly accessTokenHash: string;
  readonly dpopJkt: string;
}

/** Ends recorded before callbacks were translated name the offer and tenant only in their callback. */
const embedded = (callback: EmbeddedCallback) => ({ offerId: callback.eventId, tenantId: callback.tenantId });

/** An end of the offer: which offer, whose, and the facts of that end. */
const end = <Type extends string, Data extends t.Props>(type: Type, data: Data) =>
  eventCodec(type, readingEmbeddedCallback(t.type({ offerId: t.string, tenantId: t.string, ...data }), embedded));

export const CredentialIssued = end('CredentialIssued', { issuedAt: t.string });
export const OfferFailed = end('OfferFailed', { errorDetails: t.string, failedAt: t.string });
export const OfferExpired = end('OfferExpired', { expiredAt: t.string });

export const failed = (offer: OfferFacts, errorDetails: string, at: string): t.TypeOf<typeof OfferFailed> => ({
  type: 'OfferFailed',
  data: { offerId: offer.offerId, tenantId: offer.tenantId, errorDetails, failedAt: at },
});

/** Whether `at` is before `expiresAt`. */
export const before = (expiresAt: string, at: string): boolean => Date.parse(at) < Date.parse(expiresAt);
