// Stream category `offer`: one stream per credential offer (issuance session), `offer-<offer id>`.
// OfferCreated, then wallet steps (wrong transaction codes, the pre-authorized code redeemed),
// then exactly one of CredentialIssued, OfferFailed or OfferExpired, then ClaimsPurged once the
// offer's data key is destroyed. The claims are only ever here sealed with that key; the
// pre-authorized code, transaction code and access token only as keyed hashes. OfferCreated and
// each end name the offer and its tenant: src/callbacks translates them into Issuance Events. As a
// decider: when a pre-authorized code may be redeemed, how wrong transaction codes are counted and
// fail the offer, when an access token still opens it, and which of issuance, failure and expiry
// ends it. The authorization code flow's events, commands and errors are declared in
// streams/offerAuthorization.ts and decided here.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { sameHash, streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec, type Decider } from './event.js';
import {
  AttestedWallet,
  AuthorizationCodeGrant,
  AuthorizationCodeRedeemed,
  AuthorizationCodeReplayed,
  AuthorizationCompleted,
  AuthorizationDenied,
  AuthorizationRequestPushed,
  AuthorizationStarted,
  type AuthorizationCodeState,
  type AuthorizationCommand,
  type AuthorizationError,
} from './offerAuthorization.js';

export * from './offerAuthorization.js';

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
  t.intersection([
    t.type({
      offerId: t.string,
      tenantId: t.string,
      credentialConfigurationId: t.string,
      /** The claims, sealed with the data key of `offerId` for purpose `claims`; null when the integrator gives them at the authorization's completion. */
      claims: t.union([Sealed, t.null]),
      txCode: t.union([TxCodeRequirement, t.null]),
      createdAt: t.string,
      expiresAt: t.string,
    }),
    // Absent in offers of the pre-authorized code flow, and in every offer recorded before the authorization code flow.
    t.partial({ authorizationCode: AuthorizationCodeGrant }),
  ]),
);
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
export const OfferEvent = t.union([
  OfferCreated, TxCodeRejected, PreAuthorizedCodeRedeemed, CredentialIssued, OfferFailed, OfferExpired, ClaimsPurged,
  AuthorizationRequestPushed, AuthorizationStarted, AuthorizationCompleted, AuthorizationDenied, AuthorizationCodeRedeemed, AuthorizationCodeReplayed,
]);
export type OfferEvent = t.TypeOf<typeof OfferEvent>;

export interface OpenOffer {
  readonly offerId: string;
  readonly tenantId: string;
  readonly credentialConfigurationId: string;
  readonly claims: Sealed | null;
  readonly txCode: TxCodeRequirement | null;
  readonly expiresAt: string;
  readonly txCodeFailures: number;
  readonly token: { readonly accessTokenHash: string; readonly dpopJkt: string } | null;
  /** Offers of the authorization code flow: the grant and where its authorization stands. */
  readonly authorizationCode: AuthorizationCodeState | null;
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
        /** The wallet its attestation authenticated; undefined when it sent none. */
        readonly wallet: AttestedWallet | undefined;
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
  | { readonly type: 'PurgeClaims'; readonly data: { readonly offerId: string; readonly at: string } }
  | AuthorizationCommand;

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
  | { readonly _tag: 'AccessTokenUnknown'; readonly offerId: string }
  | AuthorizationError;

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
      authorizationCode: d.authorizationCode === undefined ? null : { grant: d.authorizationCode, request: null, authorization: null, code: null },
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'AuthorizationRequestPushed':
    case 'AuthorizationStarted':
    case 'AuthorizationCompleted':
    case 'AuthorizationDenied':
    case 'AuthorizationCodeRedeemed':
    case 'AuthorizationCodeReplayed':
      return evolveAuthorization(state, event);
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


const evolveAuthorization = (state: Open, event: Extract<OfferEvent, { type: `Authorization${string}` }>): OfferState => {
  const grant = state.authorizationCode;
  if (grant === null) return state;
  const at = (next: Partial<AuthorizationCodeState>): OfferState => ({ ...state, authorizationCode: { ...grant, ...next } });
  switch (event.type) {
    case 'AuthorizationRequestPushed':
      return at({ request: { ...event.data, used: false } });
    case 'AuthorizationStarted':
      return grant.request === null
        ? state
        : at({
            request: { ...grant.request, used: true },
            authorization: {
              authorizationIdHash: event.data.authorizationIdHash,
              expiresAt: event.data.expiresAt,
              request: grant.request,
              outcome: 'pending',
              dpopJkt: grant.request.dpopJkt ?? event.data.dpopJkt,
            },
          });
    case 'AuthorizationCompleted':
      return {
        ...at({
          authorization: grant.authorization && { ...grant.authorization, outcome: 'completed' },
          code: { codeHash: event.data.codeHash, expiresAt: event.data.codeExpiresAt, redeemed: false },
        }),
        ...(event.data.claims === null ? {} : { claims: event.data.claims }),
      } as OfferState;
    case 'AuthorizationDenied':
      return at({ authorization: grant.authorization && { ...grant.authorization, outcome: 'denied' } });
    case 'AuthorizationCodeRedeemed':
      return { ...at({ code: grant.code && { ...grant.code, redeemed: true } }), token: { accessTokenHash: event.data.accessTokenHash, dpopJkt: event.data.dpopJkt } } as OfferState;
    case 'AuthorizationCodeReplayed':
      return { ...state, token: null };
  }
};

const before = (expiresAt: string, at: string): boolean => Date.parse(at) < Date.parse(expiresAt);

const decideAuthorization = (command: AuthorizationCommand, state: Open): Either<DomainError, OfferEvent[]> => {
  const { offerId } = state;
  const grant = state.authorizationCode;
  if (grant === null) return left({ _tag: 'NotAuthorizationCodeOffer', offerId });
  switch (command.type) {
    case 'PushAuthorizationRequest': {
      const { offerId: _, at, ...pushed } = command.data;
      if (!pushed.credentialConfigurationIds.includes(state.credentialConfigurationId)) return left({ _tag: 'CredentialConfigurationNotOffered', offerId });
      // A wallet may push again (the user came back later); once the integrator has answered, the offer's authorization is settled.
      if (grant.authorization !== null && grant.authorization.outcome !== 'pending') return left({ _tag: 'AlreadyAuthorized', offerId });
      return right([{ type: 'AuthorizationRequestPushed', data: { ...pushed, pushedAt: at } }]);
    }
    case 'StartAuthorization': {
      const c = command.data;
      const request = grant.request;
      if (request === null || request.used || !sameHash(request.requestUriHash, c.requestUriHash) || !before(request.expiresAt, c.at)) {
        return left({ _tag: 'RequestUriUnknown', offerId });
      }
      if (request.wallet.clientId !== c.clientId) return left({ _tag: 'ClientMismatch', offerId });
      if (grant.authorization !== null && grant.authorization.outcome !== 'pending') return left({ _tag: 'AlreadyAuthorized', offerId });
      // RFC 9449 section 10.1: one key binds the code; a second naming another is refused.
      if (c.dpopJkt !== undefined && request.dpopJkt !== undefined && c.dpopJkt !== request.dpopJkt) return left({ _tag: 'DpopKeyMismatch', offerId });
      const dpopJkt = request.dpopJkt === undefined && c.dpopJkt !== undefined ? { dpopJkt: c.dpopJkt } : {};
      return right([{ type: 'AuthorizationStarted', data: { requestUriHash: c.requestUriHash, authorizationIdHash: c.authorizationIdHash, startedAt: c.at, expiresAt: c.expiresAt, ...dpopJkt } }]);
    }
    case 'CompleteAuthorization':
    case 'DenyAuthorization': {
      const c = command.data;
      const authorization = grant.authorization;
      if (authorization === null || !sameHash(authorization.authorizationIdHash, c.authorizationIdHash)) return left({ _tag: 'AuthorizationUnknown', offerId });
      if (authorization.outcome !== 'pending') return left({ _tag: 'AuthorizationEnded', offerId });
      if (!before(authorization.expiresAt, c.at)) return left({ _tag: 'AuthorizationUnknown', offerId });
      if (command.type === 'DenyAuthorization') {
        return right([
          { type: 'AuthorizationDenied', data: { authorizationIdHash: c.authorizationIdHash, error: command.data.error, deniedAt: c.at } },
          failed(state, command.data.error, c.at),
        ]);
      }
      const d = command.data;
      if (state.claims === null && d.claims === null) return left({ _tag: 'ClaimsRequired', offerId });
      if (state.claims !== null && d.claimsDiffer) return left({ _tag: 'ClaimsDiffer', offerId });
      return right([
        {
          type: 'AuthorizationCompleted',
          data: { authorizationIdHash: d.authorizationIdHash, codeHash: d.codeHash, claims: state.claims === null ? d.claims : null, completedAt: d.at, codeExpiresAt: d.codeExpiresAt },
        },
      ]);
    }
    case 'RedeemAuthorizationCode': {
      const c = command.data;
      const code = grant.code;
      const authorization = grant.authorization;
      const request = authorization?.request;
      if (code === null || authorization === null || request === undefined || !sameHash(code.codeHash, c.codeHash)) return left({ _tag: 'AuthorizationCodeUnknown', offerId });
      // A code used twice: refused, and the token issued with it revoked (RFC 6749 section 4.1.2).
      if (code.redeemed) return right(state.token === null ? [] : [{ type: 'AuthorizationCodeReplayed', data: { replayedAt: c.at } }]);
      if (!before(code.expiresAt, c.at)) return left({ _tag: 'AuthorizationCodeUnknown', offerId });
      if (c.clientId !== request.wallet.clientId) return left({ _tag: 'ClientMismatch', offerId });
      if (c.redirectUri !== request.redirectUri) return left({ _tag: 'RedirectUriMismatch', offerId });
      if (!sameHash(c.codeChallenge, request.codeChallenge)) return left({ _tag: 'CodeVerifierMismatch', offerId });
      // RFC 9449 section 10: a code bound to a DPoP key is redeemed only with a proof of that key; refused, it stays unspent.
      if (authorization.dpopJkt !== undefined && c.dpopJkt !== authorization.dpopJkt) return left({ _tag: 'DpopKeyMismatch', offerId });
      return right([
        { type: 'AuthorizationCodeRedeemed', data: { accessTokenHash: c.accessTokenHash, dpopJkt: c.dpopJkt, clientId: c.clientId, redeemedAt: c.at, expiresAt: state.expiresAt } },
      ]);
    }
  }
};

const redeem = (state: Open, c: Extract<Command, { type: 'RedeemPreAuthorizedCode' }>['data']): Either<DomainError, OfferEvent[]> => {
  const { offerId } = state;
  // An authorization-code offer has no pre-authorized code to redeem.
  if (state.authorizationCode !== null) return left({ _tag: 'OfferNotFound', offerId });
  if (state.token !== null) return left({ _tag: 'PreAuthorizedCodeUsed', offerId });
  if (state.txCode === null && c.txCodeHash !== undefined) return left({ _tag: 'TxCodeNotExpected', offerId });
  if (state.txCode !== null && c.txCodeHash === undefined) return left({ _tag: 'TxCodeRequired', offerId });
  if (state.txCode === null || sameHash(state.txCode.hash, c.txCodeHash!)) {
    // The access token lives as long as the offer: past that, the offer expires and the token with it.
    return right([
      {
        type: 'PreAuthorizedCodeRedeemed',
        data: { accessTokenHash: c.accessTokenHash, dpopJkt: c.dpopJkt, ...(c.wallet === undefined ? {} : { wallet: c.wallet }), redeemedAt: c.at, expiresAt: state.expiresAt },
      },
    ]);
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
    case 'PushAuthorizationRequest':
    case 'StartAuthorization':
    case 'CompleteAuthorization':
    case 'DenyAuthorization':
    case 'RedeemAuthorizationCode': {
      const open = openAt(state, offerId, at);
      return isLeft(open) ? open : decideAuthorization(command, open.right);
    }
  }
};

export const offer: Decider<Command, OfferState, OfferEvent, DomainError> = { category, codec: OfferEvent, initialState, evolve, decide };
