// Stream category `offer`: one stream per credential offer (issuance session), `offer-<offer id>`.
// OfferCreated, then wallet steps (wrong transaction codes, the pre-authorized code redeemed, or
// the authorization code flow), then exactly one of CredentialIssued, OfferFailed or OfferExpired,
// then ClaimsPurged once the offer's data key is destroyed. The claims are only ever here sealed
// with that key; the pre-authorized code, transaction code and access token only as keyed hashes.
// OfferCreated and each end name the offer and its tenant: src/callbacks translates them into
// Issuance Events. As a decider: one state per phase. An open offer holds its grant's phase, which
// the grant's sub-decider decides (streams/offerPreAuthorized.ts, streams/offerAuthorization.ts);
// this module composes them, says when an access token still opens the offer, and which of
// issuance, failure and expiry ends it.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { sameHash, streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';
import { CredentialIssued, failed, SealedClaims, OfferExpired, OfferFailed, TxCodeRequirement, type AccessToken, type OfferFacts, type OfferStatus } from './offerFacts.js';
import {
  decidePreAuthorized,
  evolvePreAuthorized,
  PreAuthorizedCodeRedeemed,
  preAuthorizedOffered,
  TxCodeRejected,
  type PreAuthorizedCodeState,
  type PreAuthorizedError,
  type PreAuthorizedEvent,
  type RedeemPreAuthorizedCode,
} from './offerPreAuthorized.js';
import {
  AuthorizationCodeGrant,
  AuthorizationCodeRedeemed,
  AuthorizationCodeReplayed,
  AuthorizationCompleted,
  AuthorizationDenied,
  authorizationCodeOffered,
  AuthorizationRequestPushed,
  AuthorizationStarted,
  decideAuthorization,
  evolveAuthorization,
  type AuthorizationCodeState,
  type AuthorizationCommand,
  type AuthorizationError,
  type AuthorizationEvent,
} from './offerAuthorization.js';

export * from './offerFacts.js';
export * from './offerPreAuthorized.js';
export * from './offerAuthorization.js';

export const category = 'offer';
export const offerStream = (offerId: string): string => streamName(category, offerId);

export const OfferCreated = eventCodec(
  'OfferCreated',
  t.intersection([
    t.type({
      offerId: t.string,
      tenantId: t.string,
      credentialConfigurationId: t.string,
      /** The claims, sealed with the data key of `offerId` for purpose `claims`; null when the integrator gives them at the authorization's completion. */
      claims: t.union([SealedClaims, t.null]),
      txCode: t.union([TxCodeRequirement, t.null]),
      createdAt: t.string,
      expiresAt: t.string,
    }),
    // Absent in offers of the pre-authorized code flow, and in every offer recorded before the authorization code flow.
    // `credentialIssuer` and `configurationRevision`: recorded for offers of a tenant's own credential issuer (issue 38),
    // absent in offers of the deployment's issuer and in every offer recorded before tenants had their own.
    t.partial({ authorizationCode: AuthorizationCodeGrant, credentialIssuer: t.string, configurationRevision: t.number }),
  ]),
);
/** The offer's data key is destroyed: the sealed claims can no longer be opened. */
export const ClaimsPurged = eventCodec('ClaimsPurged', t.type({ purgedAt: t.string }));

/** Every event an offer stream can hold. */
export const OfferEvent = t.union([
  OfferCreated, TxCodeRejected, PreAuthorizedCodeRedeemed, CredentialIssued, OfferFailed, OfferExpired, ClaimsPurged,
  AuthorizationRequestPushed, AuthorizationStarted, AuthorizationCompleted, AuthorizationDenied, AuthorizationCodeRedeemed, AuthorizationCodeReplayed,
]);
export type OfferEvent = t.TypeOf<typeof OfferEvent>;

/** The grant an offer was made with, in its phase. */
export type GrantState = PreAuthorizedCodeState | AuthorizationCodeState;

/** An offer still open: its grant's phase says how far the wallet got. */
export type OpenOffer<Grant extends GrantState = GrantState> = OfferFacts & { readonly status: 'OFFER_CREATED'; readonly grant: Grant };

/** An offer that ended (its credential issued, failed or expired), its claims purged or not yet. */
export type EndedOffer = OfferFacts & { readonly status: Exclude<OfferStatus, 'OFFER_CREATED'>; readonly grant: GrantState; readonly claimsPurged: boolean };

export type OfferState = { readonly status: 'none' } | OpenOffer | EndedOffer;

export type Command =
  | {
      readonly type: 'CreateOffer';
      readonly data: Omit<t.TypeOf<typeof OfferCreated>['data'], 'createdAt'> & { readonly at: string };
    }
  | RedeemPreAuthorizedCode
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
  /** The access token is not the one this offer's code was redeemed for (or none was). */
  | { readonly _tag: 'AccessTokenUnknown'; readonly offerId: string }
  | PreAuthorizedError
  | AuthorizationError;

export const initialState: OfferState = { status: 'none' };

/** A grant's event, to its sub-decider's evolve (a grant's event on another grant's offer changes nothing). */
const evolveGrant = (grant: GrantState, event: Extract<OfferEvent, { type: PreAuthorizedEvent['type'] | AuthorizationEvent['type'] }>): GrantState => {
  switch (event.type) {
    case 'TxCodeRejected':
    case 'PreAuthorizedCodeRedeemed':
      return grant.grant === 'pre-authorized_code' ? evolvePreAuthorized(grant, event) : grant;
    case 'AuthorizationRequestPushed':
    case 'AuthorizationStarted':
    case 'AuthorizationCompleted':
    case 'AuthorizationDenied':
    case 'AuthorizationCodeRedeemed':
    case 'AuthorizationCodeReplayed':
      return grant.grant === 'authorization_code' ? evolveAuthorization(grant, event) : grant;
  }
};

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
      ...(d.credentialIssuer === undefined ? {} : { credentialIssuer: d.credentialIssuer }),
      ...(d.configurationRevision === undefined ? {} : { configurationRevision: d.configurationRevision }),
      grant: d.authorizationCode === undefined ? preAuthorizedOffered : authorizationCodeOffered(d.authorizationCode),
    };
  }
  if (state.status === 'none') return state;
  const ended = (status: EndedOffer['status']): OfferState => ({ ...state, status, claimsPurged: state.status !== 'OFFER_CREATED' && state.claimsPurged });
  switch (event.type) {
    case 'CredentialIssued':
      return ended('ISSUED');
    case 'OfferFailed':
      return ended('FAILED');
    case 'OfferExpired':
      return ended('EXPIRED');
    case 'ClaimsPurged':
      return state.status === 'OFFER_CREATED' ? state : { ...state, claimsPurged: true };
    case 'AuthorizationCompleted':
      // Claims the integrator gave at completion are the offer's from then on.
      return { ...state, grant: evolveGrant(state.grant, event), claims: event.data.claims ?? state.claims };
    case 'TxCodeRejected':
    case 'PreAuthorizedCodeRedeemed':
    case 'AuthorizationRequestPushed':
    case 'AuthorizationStarted':
    case 'AuthorizationDenied':
    case 'AuthorizationCodeRedeemed':
    case 'AuthorizationCodeReplayed':
      return { ...state, grant: evolveGrant(state.grant, event) };
  }
};

/** The offer, if it is still open at `at`: the one rule for redeeming its code and using its token. */
const openAt = (state: OfferState, offerId: string, at: string): Either<DomainError, OpenOffer> => {
  if (state.status === 'none') return left({ _tag: 'OfferNotFound', offerId });
  if (state.status !== 'OFFER_CREATED') return left({ _tag: 'OfferEnded', offerId, status: state.status });
  if (Date.parse(state.expiresAt) <= Date.parse(at)) return left({ _tag: 'OfferHasExpired', offerId });
  return right(state);
};

/** The access token the offer's grant issued and has not revoked. */
const tokenOf = (state: OfferState): AccessToken | null => (state.status !== 'none' && state.grant.phase === 'tokenIssued' ? state.grant.token : null);

/** The open offer an access token (its hash) opens at `at`; the credential endpoint asks before its checks. */
export const authorisedBy = (
  state: OfferState,
  offerId: string,
  accessTokenHash: string,
  at: string,
): Either<DomainError, OpenOffer & { readonly token: AccessToken }> => {
  const token = tokenOf(state);
  if (token === null || !sameHash(token.accessTokenHash, accessTokenHash)) return left({ _tag: 'AccessTokenUnknown', offerId });
  const open = openAt(state, offerId, at);
  return isLeft(open) ? open : right({ ...open.right, token });
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
      if (isLeft(open)) return open;
      const { grant } = open.right;
      // An authorization-code offer has no pre-authorized code to redeem.
      return grant.grant === 'pre-authorized_code' ? decidePreAuthorized(command, open.right, grant) : left({ _tag: 'OfferNotFound', offerId });
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
      if (isLeft(open)) return open;
      const { grant } = open.right;
      return grant.grant === 'authorization_code' ? decideAuthorization(command, open.right, grant) : left({ _tag: 'NotAuthorizationCodeOffer', offerId });
    }
  }
};

export const offer: Decider<Command, OfferState, OfferEvent, DomainError> = { category, codec: OfferEvent, initialState, evolve, decide };

/** What a wallet sends to an issuer's endpoints: each is decided only by the issuer the offer was made at. */
const WALLET_COMMANDS: ReadonlySet<Command['type']> = new Set(['RedeemPreAuthorizedCode', 'IssueCredential', 'PushAuthorizationRequest', 'StartAuthorization', 'RedeemAuthorizationCode']);

/**
 * Whether the offer was made at the credential issuer whose offers record `credentialIssuer`
 * (undefined: the deployment's issuer, whose offers record none).
 */
export const madeAt = (state: OfferState, credentialIssuer: string | undefined): boolean => state.status !== 'none' && state.credentialIssuer === credentialIssuer;

/**
 * The offer decider as one credential issuer's endpoints use it: a wallet's command about an
 * offer made at another issuer (its code, token, request_uri taken there) is refused as if the
 * offer did not exist, and appends nothing.
 */
export const offerAtIssuer = (credentialIssuer: string | undefined): Decider<Command, OfferState, OfferEvent, DomainError> => ({
  ...offer,
  decide: (command, state) =>
    WALLET_COMMANDS.has(command.type) && state.status !== 'none' && !madeAt(state, credentialIssuer)
      ? left({ _tag: 'OfferNotFound', offerId: command.data.offerId })
      : decide(command, state),
});
