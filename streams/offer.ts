// Stream category `offer`: one stream per credential offer (issuance session), `offer-<offer id>`.
// OfferCreated, then wallet steps (wrong transaction codes, the pre-authorized code redeemed),
// then exactly one of CredentialIssued, OfferFailed or OfferExpired, then ClaimsPurged once the
// offer's data key is destroyed. The claims are only ever here sealed with that key; the
// pre-authorized code, transaction code and access token only as keyed hashes.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { CallbackRequest } from './callback.js';
import { Sealed } from './dataKey.js';
import { eventCodec, type StreamContract } from './event.js';

export const category = 'offer';
export const offerStream = (offerId: string): string => streamName(category, offerId);

/** The Issuance Event statuses (spec/connector.md); the offer's status is always one of them. */
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

export const OfferCreated = eventCodec(
  'OfferCreated',
  t.type({
    offerId: t.string,
    tenantId: t.string,
    credentialConfigurationId: t.string,
    /** The claims, sealed with the data key of `offerId` for purpose `claims`. */
    claims: Sealed,
    txCode: t.union([TxCodeRequirement, t.null]),
    createdAt: t.string,
    expiresAt: t.string,
    callback: CallbackRequest,
  }),
);
export const TxCodeRejected = eventCodec('TxCodeRejected', t.type({ attempt: t.number, rejectedAt: t.string }));
export const PreAuthorizedCodeRedeemed = eventCodec(
  'PreAuthorizedCodeRedeemed',
  t.type({
    /** SHA-256 of the access token's secret part; the token itself is never recorded. */
    accessTokenHash: t.string,
    /** RFC 7638 thumbprint of the DPoP key the access token is bound to. */
    dpopJkt: t.string,
    redeemedAt: t.string,
    /** When the access token stops being accepted: the offer's own expiry. */
    expiresAt: t.string,
  }),
);
export const CredentialIssued = eventCodec('CredentialIssued', t.type({ issuedAt: t.string, callback: CallbackRequest }));
export const OfferFailed = eventCodec('OfferFailed', t.type({ errorDetails: t.string, failedAt: t.string, callback: CallbackRequest }));
export const OfferExpired = eventCodec('OfferExpired', t.type({ expiredAt: t.string, callback: CallbackRequest }));
/** The offer's data key is destroyed: the sealed claims can no longer be opened. */
export const ClaimsPurged = eventCodec('ClaimsPurged', t.type({ purgedAt: t.string }));

/** Every event an offer stream can hold. */
export const OfferEvent = t.union([OfferCreated, TxCodeRejected, PreAuthorizedCodeRedeemed, CredentialIssued, OfferFailed, OfferExpired, ClaimsPurged]);
export type OfferEvent = t.TypeOf<typeof OfferEvent>;

export interface OpenOffer {
  readonly offerId: string;
  readonly tenantId: string;
  readonly credentialConfigurationId: string;
  readonly claims: Sealed;
  readonly txCode: TxCodeRequirement | null;
  readonly expiresAt: string;
  readonly txCodeFailures: number;
  readonly token: { readonly accessTokenHash: string; readonly dpopJkt: string } | null;
}

export type OfferState =
  | { readonly status: 'none' }
  | (OpenOffer & { readonly status: OfferStatus; readonly claimsPurged: boolean });

export const offer: StreamContract<OfferState, OfferEvent> = {
  category,
  codec: OfferEvent,
  initialState: { status: 'none' },
  evolve: (state, event) => {
    if (event.type === 'OfferCreated') {
      const d = event.data;
      return {
        status: 'OFFER_CREATED',
        offerId: d.offerId,
        tenantId: d.tenantId,
        credentialConfigurationId: d.credentialConfigurationId,
        claims: d.claims,
        txCode: d.txCode,
        expiresAt: d.expiresAt,
        txCodeFailures: 0,
        token: null,
        claimsPurged: false,
      };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'TxCodeRejected':
        return { ...state, txCodeFailures: event.data.attempt };
      case 'PreAuthorizedCodeRedeemed':
        return { ...state, token: { accessTokenHash: event.data.accessTokenHash, dpopJkt: event.data.dpopJkt } };
      case 'CredentialIssued':
        return { ...state, status: 'ISSUED' };
      case 'OfferFailed':
        return { ...state, status: 'FAILED' };
      case 'OfferExpired':
        return { ...state, status: 'EXPIRED' };
      case 'ClaimsPurged':
        return { ...state, claimsPurged: true };
    }
  },
};

/** The Issuance Event (callback body): no personal data, so nothing sealed. */
export const issuanceCallback = (tenantId: string, offerId: string, status: OfferStatus, errorDetails?: string): CallbackRequest => ({
  tenantId,
  eventId: offerId,
  status,
  body: { eventId: offerId, status, offerId, ...(errorDetails === undefined ? {} : { errorDetails }) },
});
