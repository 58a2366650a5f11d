// The authorization code grant of an offer (OpenID4VCI section 5, HAIP 1.0 section 4): a
// sub-decider the offer's decider (streams/offer.ts) composes, with its events, commands, errors
// and one state per phase (offered, authorization pending, authorized, denied, token issued,
// token revoked). An offer
// made with the authorization_code grant: a wallet pushes an authorization request (PAR), is sent
// to the integrator's authentication page, the integrator completes (or denies) the authorization,
// and the wallet redeems the code. Each step is recorded with the wallet that took it;
// request_uri, authorization_id, code and access token only as SHA-256 hashes. A DPoP key named at
// PAR (its proof, or `dpop_jkt`) or at the authorization endpoint (`dpop_jkt`) binds the code
// (RFC 9449 section 10): its thumbprint is recorded, and the code is redeemed only with that key.
import * as t from 'io-ts';
import { isDeepStrictEqual } from 'node:util';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { sameHash } from './kernel.js';
import type { Sealed } from './dataKey.js';
import { eventCodec } from './event.js';
import { AttestedWallet, before, failed, SealedClaims, type AccessToken, type Claims, type OfferFacts, type OfferFailed } from './offerFacts.js';

export const AuthorizationCodeGrant = t.type({
  /** Where the user authenticates: the integrator's page, given `authorization_id`. */
  authenticationUrl: t.string,
});

export const AuthorizationRequestPushed = eventCodec(
  'AuthorizationRequestPushed',
  t.intersection([
    t.type({
      requestUriHash: t.string,
      wallet: AttestedWallet,
      redirectUri: t.string,
      /** S256 code challenge (RFC 7636): a hash of the wallet's secret verifier. */
      codeChallenge: t.string,
      /** The wallet's `state`, returned to it with the code. */
      state: t.union([t.string, t.null]),
      credentialConfigurationIds: t.array(t.string),
      /** Whether the wallet asked with authorization_details (answered with credential_identifiers). */
      authorizationDetails: t.boolean,
      pushedAt: t.string,
      expiresAt: t.string,
    }),
    // RFC 7638 thumbprint of the DPoP key the code is bound to (the PAR's DPoP proof or `dpop_jkt`);
    // absent when the wallet named none, and in every request recorded before the binding was kept.
    t.partial({ dpopJkt: t.string }),
  ]),
);
export const AuthorizationStarted = eventCodec(
  'AuthorizationStarted',
  t.intersection([
    t.type({ requestUriHash: t.string, authorizationIdHash: t.string, startedAt: t.string, expiresAt: t.string }),
    // `dpop_jkt` of the authorization request, when it had one (and the pushed request named no other key).
    t.partial({ dpopJkt: t.string }),
  ]),
);
export const AuthorizationCompleted = eventCodec(
  'AuthorizationCompleted',
  t.type({
    authorizationIdHash: t.string,
    codeHash: t.string,
    /** The claims the integrator gave at completion, sealed like OfferCreated's; null when the offer had them. */
    claims: t.union([SealedClaims, t.null]),
    completedAt: t.string,
    codeExpiresAt: t.string,
  }),
);
export const AuthorizationDenied = eventCodec('AuthorizationDenied', t.type({ authorizationIdHash: t.string, error: t.string, deniedAt: t.string }));
export const AuthorizationCodeRedeemed = eventCodec(
  'AuthorizationCodeRedeemed',
  t.type({ accessTokenHash: t.string, dpopJkt: t.string, clientId: t.string, redeemedAt: t.string, expiresAt: t.string }),
);
/** The code came back after it was redeemed: its access token is revoked (RFC 6749 section 4.1.2). */
export const AuthorizationCodeReplayed = eventCodec('AuthorizationCodeReplayed', t.type({ replayedAt: t.string }));

export type AuthorizationEvent =
  | t.TypeOf<typeof AuthorizationRequestPushed>
  | t.TypeOf<typeof AuthorizationStarted>
  | t.TypeOf<typeof AuthorizationCompleted>
  | t.TypeOf<typeof AuthorizationDenied>
  | t.TypeOf<typeof AuthorizationCodeRedeemed>
  | t.TypeOf<typeof AuthorizationCodeReplayed>;

export type PushedRequest = t.TypeOf<typeof AuthorizationRequestPushed>['data'];

/** The authorization the user is sent to complete, from the request it was started with. */
export interface Authorization {
  readonly authorizationIdHash: string;
  readonly expiresAt: string;
  readonly request: PushedRequest;
  /** The DPoP key thumbprint the code is bound to: the pushed request's, else the authorization request's; undefined when neither named one. */
  readonly dpopJkt: string | undefined;
}

export interface AuthorizationCode {
  readonly codeHash: string;
  readonly expiresAt: string;
}

interface Grant {
  readonly grant: 'authorization_code';
  /** Where the user authenticates: the integrator's page, given `authorization_id`. */
  readonly authenticationUrl: string;
  /** The latest pushed authorization request, until it is used at the authorization endpoint. */
  readonly request: PushedRequest | null;
}

export type AuthorizationCodeState = Grant &
  (
    | { readonly phase: 'offered' }
    | { readonly phase: 'authorizationPending'; readonly authorization: Authorization }
    | { readonly phase: 'authorized'; readonly authorization: Authorization; readonly code: AuthorizationCode }
    | { readonly phase: 'denied'; readonly authorization: Authorization }
    | { readonly phase: 'tokenIssued'; readonly authorization: Authorization; readonly code: AuthorizationCode; readonly token: AccessToken }
    /** The code came back after it was redeemed: its token no longer opens the offer. */
    | { readonly phase: 'tokenRevoked'; readonly authorization: Authorization; readonly code: AuthorizationCode }
  );

export const authorizationCodeOffered = (grant: t.TypeOf<typeof AuthorizationCodeGrant>): AuthorizationCodeState => ({
  grant: 'authorization_code',
  authenticationUrl: grant.authenticationUrl,
  request: null,
  phase: 'offered',
});

export type AuthorizationCommand =
  | {
      /** A pushed authorization request (RFC 9126) the wallet authenticated with its attestation. */
      readonly type: 'PushAuthorizationRequest';
      readonly data: Omit<t.TypeOf<typeof AuthorizationRequestPushed>['data'], 'pushedAt'> & { readonly offerId: string; readonly at: string };
    }
  | {
      /** The wallet sends the user to the authorization endpoint with its request_uri. */
      readonly type: 'StartAuthorization';
      readonly data: {
        readonly offerId: string;
        readonly requestUriHash: string;
        readonly clientId: string;
        readonly authorizationIdHash: string;
        /** `dpop_jkt` of the authorization request, when it has one. */
        readonly dpopJkt: string | undefined;
        /** When the integrator must have completed it. */
        readonly expiresAt: string;
        readonly at: string;
      };
    }
  | {
      /** The integrator authenticated the user: a code for the wallet. */
      readonly type: 'CompleteAuthorization';
      readonly data: {
        readonly offerId: string;
        readonly authorizationIdHash: string;
        /** Claims given now, as given and sealed; null when none were given. */
        readonly claims: { readonly given: Claims; readonly sealed: Sealed<Claims> } | null;
        /** The offer's own claims, opened by the caller (opening is I/O); null when it has none. The decider compares them with those given. */
        readonly offerClaims: Claims | null;
        readonly codeHash: string;
        readonly codeExpiresAt: string;
        readonly at: string;
      };
    }
  | {
      /** The integrator refused (the user did not authenticate, or may not have the credential). */
      readonly type: 'DenyAuthorization';
      readonly data: { readonly offerId: string; readonly authorizationIdHash: string; readonly error: string; readonly at: string };
    }
  | {
      /** A token request with the authorization_code grant (RFC 6749 section 4.1.3, RFC 7636 section 4.6). */
      readonly type: 'RedeemAuthorizationCode';
      readonly data: {
        readonly offerId: string;
        readonly codeHash: string;
        /** S256 of the code_verifier received (src/issuance/pkce.ts). */
        readonly codeChallenge: string;
        readonly redirectUri: string;
        readonly clientId: string;
        readonly accessTokenHash: string;
        readonly dpopJkt: string;
        readonly at: string;
      };
    };

export type AuthorizationError =
  | { readonly _tag: 'NotAuthorizationCodeOffer'; readonly offerId: string }
  | { readonly _tag: 'CredentialConfigurationNotOffered'; readonly offerId: string }
  | { readonly _tag: 'AlreadyAuthorized'; readonly offerId: string }
  /** No pushed request with this request_uri, or it was used or is past its expiry. */
  | { readonly _tag: 'RequestUriUnknown'; readonly offerId: string }
  | { readonly _tag: 'ClientMismatch'; readonly offerId: string }
  /** No pending authorization with this id, or it is past its expiry. */
  | { readonly _tag: 'AuthorizationUnknown'; readonly offerId: string }
  | { readonly _tag: 'AuthorizationEnded'; readonly offerId: string }
  | { readonly _tag: 'ClaimsRequired'; readonly offerId: string }
  | { readonly _tag: 'ClaimsDiffer'; readonly offerId: string }
  /** Unknown or expired code. */
  | { readonly _tag: 'AuthorizationCodeUnknown'; readonly offerId: string }
  | { readonly _tag: 'RedirectUriMismatch'; readonly offerId: string }
  | { readonly _tag: 'CodeVerifierMismatch'; readonly offerId: string }
  /** The authorization request names another DPoP key than its pushed request, or the token request proves another key than the code is bound to. */
  | { readonly _tag: 'DpopKeyMismatch'; readonly offerId: string };


type Decision = Either<AuthorizationError, Array<AuthorizationEvent | t.TypeOf<typeof OfferFailed>>>;

export const evolveAuthorization = (grant: AuthorizationCodeState, event: AuthorizationEvent): AuthorizationCodeState => {
  switch (event.type) {
    case 'AuthorizationRequestPushed':
      return { ...grant, request: event.data };
    case 'AuthorizationStarted': {
      const { request } = grant;
      if (request === null) return grant;
      const authorization = { authorizationIdHash: event.data.authorizationIdHash, expiresAt: event.data.expiresAt, request, dpopJkt: request.dpopJkt ?? event.data.dpopJkt };
      return { grant: grant.grant, authenticationUrl: grant.authenticationUrl, request: null, phase: 'authorizationPending', authorization };
    }
    case 'AuthorizationCompleted':
      return grant.phase === 'authorizationPending'
        ? { ...grant, phase: 'authorized', code: { codeHash: event.data.codeHash, expiresAt: event.data.codeExpiresAt } }
        : grant;
    case 'AuthorizationDenied':
      return grant.phase === 'authorizationPending' ? { ...grant, phase: 'denied' } : grant;
    case 'AuthorizationCodeRedeemed':
      return grant.phase === 'authorized' ? { ...grant, phase: 'tokenIssued', token: { accessTokenHash: event.data.accessTokenHash, dpopJkt: event.data.dpopJkt } } : grant;
    case 'AuthorizationCodeReplayed':
      return grant.phase === 'tokenIssued' ? { grant: grant.grant, authenticationUrl: grant.authenticationUrl, request: grant.request, phase: 'tokenRevoked', authorization: grant.authorization, code: grant.code } : grant;
  }
};

/** The authorization, once one was started, and the integrator's answer to it so far. */
export const startedAuthorization = (grant: AuthorizationCodeState): { readonly authorization: Authorization; readonly outcome: 'pending' | 'completed' | 'denied' } | null => {
  switch (grant.phase) {
    case 'offered':
      return null;
    case 'authorizationPending':
      return { authorization: grant.authorization, outcome: 'pending' };
    case 'denied':
      return { authorization: grant.authorization, outcome: 'denied' };
    case 'authorized':
    case 'tokenIssued':
    case 'tokenRevoked':
      return { authorization: grant.authorization, outcome: 'completed' };
  }
};

/** An authorization-code command on an open offer made with this grant. */
export const decideAuthorization = (command: AuthorizationCommand, offer: OfferFacts, grant: AuthorizationCodeState): Decision => {
  const { offerId } = offer;
  // Once the integrator has answered, the offer's authorization is settled.
  const settled = grant.phase !== 'offered' && grant.phase !== 'authorizationPending';
  switch (command.type) {
    case 'PushAuthorizationRequest': {
      const { offerId: _, at, ...pushed } = command.data;
      if (!pushed.credentialConfigurationIds.includes(offer.credentialConfigurationId)) return left({ _tag: 'CredentialConfigurationNotOffered', offerId });
      // A wallet may push again (the user came back later) until the authorization is settled.
      if (settled) return left({ _tag: 'AlreadyAuthorized', offerId });
      return right([{ type: 'AuthorizationRequestPushed', data: { ...pushed, pushedAt: at } }]);
    }
    case 'StartAuthorization': {
      const c = command.data;
      const { request } = grant;
      if (request === null || !sameHash(request.requestUriHash, c.requestUriHash) || !before(request.expiresAt, c.at)) {
        return left({ _tag: 'RequestUriUnknown', offerId });
      }
      if (request.wallet.clientId !== c.clientId) return left({ _tag: 'ClientMismatch', offerId });
      if (settled) return left({ _tag: 'AlreadyAuthorized', offerId });
      // RFC 9449 section 10.1: one key binds the code; a second naming another is refused.
      if (c.dpopJkt !== undefined && request.dpopJkt !== undefined && c.dpopJkt !== request.dpopJkt) return left({ _tag: 'DpopKeyMismatch', offerId });
      const dpopJkt = request.dpopJkt === undefined && c.dpopJkt !== undefined ? { dpopJkt: c.dpopJkt } : {};
      return right([{ type: 'AuthorizationStarted', data: { requestUriHash: c.requestUriHash, authorizationIdHash: c.authorizationIdHash, startedAt: c.at, expiresAt: c.expiresAt, ...dpopJkt } }]);
    }
    case 'CompleteAuthorization':
    case 'DenyAuthorization': {
      const c = command.data;
      const authorization = startedAuthorization(grant)?.authorization ?? null;
      if (authorization === null || !sameHash(authorization.authorizationIdHash, c.authorizationIdHash)) return left({ _tag: 'AuthorizationUnknown', offerId });
      if (grant.phase !== 'authorizationPending') return left({ _tag: 'AuthorizationEnded', offerId });
      if (!before(authorization.expiresAt, c.at)) return left({ _tag: 'AuthorizationUnknown', offerId });
      if (command.type === 'DenyAuthorization') {
        return right([
          { type: 'AuthorizationDenied', data: { authorizationIdHash: c.authorizationIdHash, error: command.data.error, deniedAt: c.at } },
          failed(offer, command.data.error, c.at),
        ]);
      }
      const d = command.data;
      if (offer.claims === null && d.claims === null) return left({ _tag: 'ClaimsRequired', offerId });
      if (offer.claims !== null && d.claims !== null && !isDeepStrictEqual(d.claims.given, d.offerClaims)) return left({ _tag: 'ClaimsDiffer', offerId });
      return right([
        {
          type: 'AuthorizationCompleted',
          data: { authorizationIdHash: d.authorizationIdHash, codeHash: d.codeHash, claims: offer.claims === null && d.claims !== null ? d.claims.sealed : null, completedAt: d.at, codeExpiresAt: d.codeExpiresAt },
        },
      ]);
    }
    case 'RedeemAuthorizationCode': {
      const c = command.data;
      if (grant.phase !== 'authorized' && grant.phase !== 'tokenIssued' && grant.phase !== 'tokenRevoked') return left({ _tag: 'AuthorizationCodeUnknown', offerId });
      const { code, authorization } = grant;
      const { request } = authorization;
      if (!sameHash(code.codeHash, c.codeHash)) return left({ _tag: 'AuthorizationCodeUnknown', offerId });
      // A code used twice: refused, and the token issued with it revoked (RFC 6749 section 4.1.2).
      if (grant.phase === 'tokenIssued') return right([{ type: 'AuthorizationCodeReplayed', data: { replayedAt: c.at } }]);
      if (grant.phase === 'tokenRevoked') return right([]);
      if (!before(code.expiresAt, c.at)) return left({ _tag: 'AuthorizationCodeUnknown', offerId });
      if (c.clientId !== request.wallet.clientId) return left({ _tag: 'ClientMismatch', offerId });
      if (c.redirectUri !== request.redirectUri) return left({ _tag: 'RedirectUriMismatch', offerId });
      if (!sameHash(c.codeChallenge, request.codeChallenge)) return left({ _tag: 'CodeVerifierMismatch', offerId });
      // RFC 9449 section 10: a code bound to a DPoP key is redeemed only with a proof of that key; refused, it stays unspent.
      if (authorization.dpopJkt !== undefined && c.dpopJkt !== authorization.dpopJkt) return left({ _tag: 'DpopKeyMismatch', offerId });
      return right([
        { type: 'AuthorizationCodeRedeemed', data: { accessTokenHash: c.accessTokenHash, dpopJkt: c.dpopJkt, clientId: c.clientId, redeemedAt: c.at, expiresAt: offer.expiresAt } },
      ]);
    }
  }
};
