// Stream category `offer`: one stream per credential offer (issuance session), `offer-<offer id>`.
// OfferCreated, then wallet steps (wrong transaction codes, the pre-authorized code redeemed),
// then exactly one of CredentialIssued, OfferFailed or OfferExpired, then ClaimsPurged once the
// offer's data key is destroyed. The claims are only ever here sealed with that key; the
// pre-authorized code, transaction code and access token only as keyed hashes. OfferCreated and
// each end name the offer and its tenant: src/callbacks translates them into Issuance Events. As a
// decider: when a pre-authorized code may be redeemed, how wrong transaction codes are counted and
// fail the offer, when an access token still opens it, and which of issuance, failure and expiry
// ends it.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { sameHash, streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'offer';
export const offerStream = (offerId: string): string => streamName(category, offerId);

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
/** Ends recorded before callbacks were translated name the offer and tenant only in their callback. */
const embedded = (callback: EmbeddedCallback) => ({ offerId: callback.eventId, tenantId: callback.tenantId });

/** An end of the offer: which offer, whose, and the facts of that end. */
const end = <Type extends string, Data extends t.Props>(type: Type, data: Data) =>
  eventCodec(type, readingEmbeddedCallback(t.type({ offerId: t.string, tenantId: t.string, ...data }), embedded));

export const CredentialIssued = end('CredentialIssued', { issuedAt: t.string });
export const OfferFailed = end('OfferFailed', { errorDetails: t.string, failedAt: t.string });
export const OfferExpired = end('OfferExpired', { expiredAt: t.string });
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

export type Command =
  | {
      readonly type: 'CreateOffer';
      readonly data: Omit<t.TypeOf<typeof OfferCreated>['data'], 'createdAt'> & { readonly at: string };
    }
  | {
      /** A token request with the pre-authorized code grant (OpenID4VCI section 6.1). */
      readonly type: 'RedeemPreAuthorizedCode';
      readonly data: {
        readonly offerId: string;
        /** The MAC of the `tx_code` sent (as recorded in OfferCreated), or undefined if none was. */
        readonly txCodeHash: string | undefined;
        readonly accessTokenHash: string;
        readonly dpopJkt: string;
        /** Wrong transaction codes allowed before the offer fails. */
        readonly maxTxCodeAttempts: number;
        readonly at: string;
      };
    }
  | {
      /** A credential request (OpenID4VCI section 8) whose credential is signed: issue it. */
      readonly type: 'IssueCredential';
      readonly data: { readonly offerId: string; readonly accessTokenHash: string; readonly at: string };
    }
  | { readonly type: 'FailOffer'; readonly data: { readonly offerId: string; readonly errorDetails: string; readonly at: string } }
  | { readonly type: 'ExpireOffer'; readonly data: { readonly offerId: string; readonly at: string } }
  | { readonly type: 'PurgeClaims'; readonly data: { readonly offerId: string; readonly at: string } };

export type DomainError =
  | { readonly _tag: 'OfferExists'; readonly offerId: string }
  /** No such offer: to the wallet, an unknown code or token. */
  | { readonly _tag: 'OfferNotFound'; readonly offerId: string }
  | { readonly _tag: 'OfferEnded'; readonly offerId: string; readonly status: OfferStatus }
  | { readonly _tag: 'OfferHasExpired'; readonly offerId: string }
  | { readonly _tag: 'PreAuthorizedCodeUsed'; readonly offerId: string }
  | { readonly _tag: 'TxCodeNotExpected'; readonly offerId: string }
  | { readonly _tag: 'TxCodeRequired'; readonly offerId: string }
  /** The access token is not the one this offer's code was redeemed for (or none was). */
  | { readonly _tag: 'AccessTokenUnknown'; readonly offerId: string };

export const initialState: OfferState = { status: 'none' };

export const evolve = (state: OfferState, event: OfferEvent): OfferState => {
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
};

type Open = Extract<OfferState, { status: OfferStatus }>;

/** The offer, if it is still open at `at`: the one rule for redeeming its code and using its token. */
const openAt = (state: OfferState, offerId: string, at: string): Either<DomainError, Open> => {
  if (state.status === 'none') return left({ _tag: 'OfferNotFound', offerId });
  if (state.status !== 'OFFER_CREATED') return left({ _tag: 'OfferEnded', offerId, status: state.status });
  if (Date.parse(state.expiresAt) <= Date.parse(at)) return left({ _tag: 'OfferHasExpired', offerId });
  return right(state);
};

/** The open offer an access token (its hash) opens at `at`; the credential endpoint asks before its checks. */
export const authorisedBy = (
  state: OfferState,
  offerId: string,
  accessTokenHash: string,
  at: string,
): Either<DomainError, Open & { readonly token: NonNullable<Open['token']> }> => {
  const token = state.status === 'none' ? null : state.token;
  if (token === null || !sameHash(token.accessTokenHash, accessTokenHash)) return left({ _tag: 'AccessTokenUnknown', offerId });
  const open = openAt(state, offerId, at);
  return isLeft(open) ? open : right({ ...open.right, token });
};

const failed = (state: Open, errorDetails: string, at: string): OfferEvent => ({
  type: 'OfferFailed',
  data: { offerId: state.offerId, tenantId: state.tenantId, errorDetails, failedAt: at },
});

const redeem = (state: Open, c: Extract<Command, { type: 'RedeemPreAuthorizedCode' }>['data']): Either<DomainError, OfferEvent[]> => {
  const { offerId } = state;
  if (state.token !== null) return left({ _tag: 'PreAuthorizedCodeUsed', offerId });
  if (state.txCode === null && c.txCodeHash !== undefined) return left({ _tag: 'TxCodeNotExpected', offerId });
  if (state.txCode !== null && c.txCodeHash === undefined) return left({ _tag: 'TxCodeRequired', offerId });
  if (state.txCode === null || sameHash(state.txCode.hash, c.txCodeHash!)) {
    // The access token lives as long as the offer: past that, the offer expires and the token with it.
    return right([{ type: 'PreAuthorizedCodeRedeemed', data: { accessTokenHash: c.accessTokenHash, dpopJkt: c.dpopJkt, redeemedAt: c.at, expiresAt: state.expiresAt } }]);
  }
  const attempt = state.txCodeFailures + 1;
  const rejected: OfferEvent = { type: 'TxCodeRejected', data: { attempt, rejectedAt: c.at } };
  return right(attempt < c.maxTxCodeAttempts ? [rejected] : [rejected, failed(state, `transaction code wrong ${attempt} times`, c.at)]);
};

export const decide = (command: Command, state: OfferState): Either<DomainError, OfferEvent[]> => {
  const { offerId, at } = command.data;
  switch (command.type) {
    case 'CreateOffer': {
      if (state.status !== 'none') return left({ _tag: 'OfferExists', offerId });
      const { at: createdAt, ...created } = command.data;
      return right([{ type: 'OfferCreated', data: { ...created, createdAt } }]);
    }
    case 'RedeemPreAuthorizedCode': {
      const open = openAt(state, offerId, at);
      return isLeft(open) ? open : redeem(open.right, command.data);
    }
    case 'IssueCredential': {
      // Decided on the stream as it is when the credential is signed: an offer that expired or
      // failed meanwhile never issues.
      const open = authorisedBy(state, offerId, command.data.accessTokenHash, at);
      return isLeft(open) ? open : right([{ type: 'CredentialIssued', data: { offerId, tenantId: open.right.tenantId, issuedAt: at } }]);
    }
    // Failure, expiry and purge end what is open (or purge what has ended) and otherwise record
    // nothing: whoever got in first has already ended the offer.
    case 'FailOffer':
      return right(state.status === 'OFFER_CREATED' ? [failed(state, command.data.errorDetails, at)] : []);
    case 'ExpireOffer':
      return right(
        state.status === 'OFFER_CREATED' && Date.parse(state.expiresAt) <= Date.parse(at)
          ? [{ type: 'OfferExpired', data: { offerId, tenantId: state.tenantId, expiredAt: at } }]
          : [],
      );
    case 'PurgeClaims':
      return right(state.status !== 'none' && state.status !== 'OFFER_CREATED' && !state.claimsPurged ? [{ type: 'ClaimsPurged', data: { purgedAt: at } }] : []);
  }
};

export const offer: Decider<Command, OfferState, OfferEvent, DomainError> = { category, codec: OfferEvent, initialState, evolve, decide };
