// The pre-authorized code grant of an offer (OpenID4VCI section 3.5, 6.1): a sub-decider the
// offer's decider (streams/offer.ts) composes. Its phases: offered (the code not yet redeemed,
// wrong transaction codes counted) and token issued. Wrong transaction codes fail the offer after
// the allowed attempts; the code is redeemed once, for an access token as long-lived as the offer.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { sameHash } from './kernel.js';
import { eventCodec } from './event.js';
import { AttestedWallet, failed, type AccessToken, type OfferFacts, type OfferFailed } from './offerFacts.js';

export const TxCodeRejected = eventCodec('TxCodeRejected', t.type({ attempt: t.number, rejectedAt: t.string }));
export const PreAuthorizedCodeRedeemed = eventCodec(
  'PreAuthorizedCodeRedeemed',
  t.intersection([
    t.type({
      /** SHA-256 of the access token's secret part; the token itself is never recorded. */
      accessTokenHash: t.string,
      /** RFC 7638 thumbprint of the DPoP key the access token is bound to. */
      dpopJkt: t.string,
      redeemedAt: t.string,
      /** When the access token stops being accepted: the offer's own expiry. */
      expiresAt: t.string,
    }),
    // The wallet its attestation authenticated, when it sent one (WALLET_ATTESTATION); absent
    // without one, and in every redemption recorded before it was kept.
    t.partial({ wallet: AttestedWallet }),
  ]),
);
export type PreAuthorizedEvent = t.TypeOf<typeof TxCodeRejected> | t.TypeOf<typeof PreAuthorizedCodeRedeemed>;

export type PreAuthorizedCodeState =
  /** The code is not redeemed yet; `txCodeFailures` wrong transaction codes were sent. */
  | { readonly grant: 'pre-authorized_code'; readonly phase: 'offered'; readonly txCodeFailures: number }
  | { readonly grant: 'pre-authorized_code'; readonly phase: 'tokenIssued'; readonly txCodeFailures: number; readonly token: AccessToken };

export const preAuthorizedOffered: PreAuthorizedCodeState = { grant: 'pre-authorized_code', phase: 'offered', txCodeFailures: 0 };

export interface RedeemPreAuthorizedCode {
  /** A token request with the pre-authorized code grant (OpenID4VCI section 6.1). */
  readonly type: 'RedeemPreAuthorizedCode';
  readonly data: {
    readonly offerId: string;
    /** The MAC of the `tx_code` sent (as recorded in OfferCreated), or undefined if none was. */
    readonly txCodeHash: string | undefined;
    readonly accessTokenHash: string;
    readonly dpopJkt: string;
    /** The wallet its attestation authenticated; undefined when it sent none. */
    readonly wallet: AttestedWallet | undefined;
    /** Wrong transaction codes allowed before the offer fails. */
    readonly maxTxCodeAttempts: number;
    readonly at: string;
  };
}

export type PreAuthorizedError =
  | { readonly _tag: 'PreAuthorizedCodeUsed'; readonly offerId: string }
  | { readonly _tag: 'TxCodeNotExpected'; readonly offerId: string }
  | { readonly _tag: 'TxCodeRequired'; readonly offerId: string };

export const evolvePreAuthorized = (grant: PreAuthorizedCodeState, event: PreAuthorizedEvent): PreAuthorizedCodeState => {
  switch (event.type) {
    case 'TxCodeRejected':
      return { ...grant, txCodeFailures: event.data.attempt };
    case 'PreAuthorizedCodeRedeemed':
      return { ...grant, phase: 'tokenIssued', token: { accessTokenHash: event.data.accessTokenHash, dpopJkt: event.data.dpopJkt } };
  }
};

/** A token request on an open offer: the access token, a wrong transaction code counted, or the offer failed for too many. */
export const decidePreAuthorized = (
  command: RedeemPreAuthorizedCode,
  offer: OfferFacts,
  grant: PreAuthorizedCodeState,
): Either<PreAuthorizedError, Array<PreAuthorizedEvent | t.TypeOf<typeof OfferFailed>>> => {
  const { offerId } = offer;
  const c = command.data;
  if (grant.phase === 'tokenIssued') return left({ _tag: 'PreAuthorizedCodeUsed', offerId });
  // The access token lives as long as the offer: past that, the offer expires and the token with it.
  const redeemed = (): PreAuthorizedEvent => ({
    type: 'PreAuthorizedCodeRedeemed',
    data: { accessTokenHash: c.accessTokenHash, dpopJkt: c.dpopJkt, ...(c.wallet === undefined ? {} : { wallet: c.wallet }), redeemedAt: c.at, expiresAt: offer.expiresAt },
  });
  if (offer.txCode === null) return c.txCodeHash === undefined ? right([redeemed()]) : left({ _tag: 'TxCodeNotExpected', offerId });
  if (c.txCodeHash === undefined) return left({ _tag: 'TxCodeRequired', offerId });
  if (sameHash(offer.txCode.hash, c.txCodeHash)) return right([redeemed()]);
  const attempt = grant.txCodeFailures + 1;
  const rejected: PreAuthorizedEvent = { type: 'TxCodeRejected', data: { attempt, rejectedAt: c.at } };
  return right(attempt < c.maxTxCodeAttempts ? [rejected] : [rejected, failed(offer, `transaction code wrong ${attempt} times`, c.at)]);
};
