// The authorization code flow of an offer (OpenID4VCI section 5, HAIP 1.0 section 4): its events,
// commands and errors, which the offer's decider (streams/offer.ts) takes and decides. An offer
// made with the authorization_code grant: a wallet pushes an authorization request (PAR), is sent
// to the integrator's authentication page, the integrator completes (or denies) the authorization,
// and the wallet redeems the code. Each step is recorded with the wallet that took it;
// request_uri, authorization_id, code and access token only as SHA-256 hashes. A DPoP key named at
// PAR (its proof, or `dpop_jkt`) or at the authorization endpoint (`dpop_jkt`) binds the code
// (RFC 9449 section 10): its thumbprint is recorded, and the code is redeemed only with that key.
import * as t from 'io-ts';
import { Sealed } from './dataKey.js';
import { eventCodec } from './event.js';

export const AuthorizationCodeGrant = t.type({
  /** Where the user authenticates: the integrator's page, given `authorization_id`. */
  authenticationUrl: t.string,
});

/** The wallet as its attestation authenticated it (src/issuance/walletAttestation.ts). */
export const AttestedWallet = t.type({
  clientId: t.string,
  walletProvider: t.string,
  walletProviderCertificate: t.string,
  walletName: t.union([t.string, t.null]),
  keyThumbprint: t.string,
});
export type AttestedWallet = t.TypeOf<typeof AttestedWallet>;

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
    claims: t.union([Sealed, t.null]),
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

export interface AuthorizationCodeState {
  readonly grant: t.TypeOf<typeof AuthorizationCodeGrant>;
  /** The latest pushed authorization request, until it is used at the authorization endpoint. */
  readonly request: (t.TypeOf<typeof AuthorizationRequestPushed>['data'] & { readonly used: boolean }) | null;
  /** The authorization the user is sent to complete, from the request it was started with. */
  readonly authorization: {
    readonly authorizationIdHash: string;
    readonly expiresAt: string;
    readonly request: t.TypeOf<typeof AuthorizationRequestPushed>['data'];
    readonly outcome: 'pending' | 'completed' | 'denied';
    /** The DPoP key thumbprint the code is bound to: the pushed request's, else the authorization request's; undefined when neither named one. */
    readonly dpopJkt: string | undefined;
  } | null;
  readonly code: { readonly codeHash: string; readonly expiresAt: string; readonly redeemed: boolean } | null;
}

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
        /** Claims given now, sealed; null when none were given. */
        readonly claims: Sealed | null;
        /** The caller compared claims given now with the offer's own (opening them is I/O): they differ. */
        readonly claimsDiffer: boolean;
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
