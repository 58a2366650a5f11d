// The one table from the issuance steps' errors to the OAuth errors wallets read (RFC 6749
// section 5.2, RFC 6750 section 3, RFC 9449 sections 7.1 and 8, OpenID4VCI sections 6.3 and
// 8.3.1): every step's route answers its use case's error through it. A switch with no default:
// an error a step adds and this table leaves out does not compile.
import { dpopChallenge, invalidGrant, invalidRequest, OAuthError } from '../http/oauthError.js';
import type { CredentialError } from './credential/issueCredential.js';
import type { TokenError } from './token/redeemToken.js';
import type { ParError } from './pushedAuthorization/pushAuthorizationRequest.js';
import type { ParRequestError } from './pushedAuthorization/request.js';
import type { AuthorizeError } from './authorization/startAuthorization.js';
import { UNKNOWN_REQUEST_URI } from './authorization/request.js';
import type { CredentialOfferNotFound } from './offer/credentialOffer.js';
import type { TypeMetadataNotFound } from './metadata/documents.js';

export type WalletError = TypeMetadataNotFound | CredentialOfferNotFound | ParRequestError | ParError | AuthorizeError | TokenError | CredentialError;

/** 401 with the DPoP challenge (RFC 9449 section 7.1): what a protected resource answers about its token or proof. */
const unauthorized = (error: string, description: string, headers: Readonly<Record<string, string>> = {}): OAuthError =>
  new OAuthError(401, error, description, { ...dpopChallenge(error, description), ...headers });

export const oauthErrorOf = (error: WalletError): OAuthError => {
  switch (error._tag) {
    // The metadata documents.
    case 'TypeMetadataNotFound':
      return new OAuthError(404, 'not_found', 'No credential configuration with this id.');
    // The credential offer (OpenID4VCI section 4.1.3).
    case 'CredentialOfferNotFound':
      return new OAuthError(404, 'not_found', 'No open credential offer with this id.');
    // The pushed authorization request endpoint (RFC 9126 section 2.3).
    case 'ParParameterInvalid':
      return invalidRequest(error.reason);
    case 'RequestObjectUnsupported':
      return new OAuthError(400, 'request_not_supported', 'Signed authorization requests (request) are not supported.');
    case 'ResponseTypeUnsupported':
      return new OAuthError(400, 'unsupported_response_type', 'response_type must be code.');
    case 'ScopeUnknown':
      return new OAuthError(400, 'invalid_scope', `Unknown scope ${JSON.stringify(error.scope)}.`);
    case 'AuthorizationDetailsInvalid':
      return new OAuthError(400, 'invalid_authorization_details', error.reason);
    case 'ParDpopProofInvalid':
      return new OAuthError(400, 'invalid_dpop_proof', error.reason);
    case 'OfferForAnotherConfiguration':
      return new OAuthError(400, 'invalid_scope', 'The offer is for another credential configuration.');
    case 'OfferAlreadyAuthorized':
      return invalidRequest('This offer was already authorized.');
    case 'OfferEndedBeforePush':
      return invalidRequest('The offer has ended; ask for a new one.');
    case 'IssuerStateUnknown':
      return invalidRequest('issuer_state is unknown.');
    case 'OfferUnreadable':
      return invalidRequest('The offer could not be read.');
    // The authorization endpoint: shown to the user, never redirected.
    case 'AuthorizeParameterInvalid':
      return invalidRequest(error.reason);
    case 'AuthorizeClientMismatch':
      return invalidRequest('client_id is not the one of the pushed authorization request.');
    case 'AuthorizeDpopKeyMismatch':
      return invalidRequest('dpop_jkt names another key than the pushed authorization request bound the code to.');
    case 'OfferEndedOrAuthorized':
      return invalidRequest('The offer has ended or was already authorized.');
    case 'RequestUriUnknown':
      return invalidRequest(UNKNOWN_REQUEST_URI);
    // Either wallet endpoint that authenticates the wallet (PAR, token).
    case 'WalletUnauthenticated':
      return new OAuthError(401, 'invalid_client', error.reason);
    // The credential endpoint (a protected resource).
    case 'AccessTokenInQuery':
      return invalidRequest('Send the access token in the Authorization header, not the query.');
    case 'DpopAccessTokenMissing':
      return unauthorized('invalid_token', 'Send the access token as `Authorization: DPoP <token>` with a DPoP proof.');
    case 'AccessTokenUnknown':
      return unauthorized('invalid_token', 'The access token is unknown.');
    case 'AccessTokenEnded':
      return unauthorized('invalid_token', 'The access token is no longer valid: the offer has ended.');
    case 'AccessTokenExpired':
      return unauthorized('invalid_token', 'The access token has expired.');
    case 'OfferChanged':
      return unauthorized('invalid_token', 'The offer changed while the credential was requested; it was not issued.');
    case 'UseDpopNonce':
      return unauthorized('use_dpop_nonce', error.reason, { 'DPoP-Nonce': error.nonce });
    case 'CredentialDpopProofInvalid':
      return unauthorized('invalid_dpop_proof', error.reason);
    case 'EncryptionUnsupported':
      return new OAuthError(400, 'invalid_encryption_parameters', 'Credential response encryption is not supported.');
    case 'CredentialRequestMalformed':
      return new OAuthError(400, 'invalid_credential_request', error.reason);
    case 'CredentialConfigurationNotOffered':
      return new OAuthError(400, 'unknown_credential_configuration', 'This access token is for another credential configuration.');
    case 'KeyProofInvalid':
      return new OAuthError(400, 'invalid_proof', error.reason);
    case 'KeyProofNonceInvalid':
      return new OAuthError(400, 'invalid_nonce', error.reason);
    case 'IssuanceFailed':
      return new OAuthError(500, 'server_error', 'The credential could not be issued; the offer has failed.');
    // The token endpoint (either grant).
    case 'GrantTypeUnsupported':
      return new OAuthError(400, 'unsupported_grant_type', error.reason);
    case 'TokenParameterInvalid':
      return invalidRequest(error.reason);
    case 'TokenDpopProofMissing':
      return invalidRequest(error.reason);
    case 'TokenDpopProofInvalid':
      return new OAuthError(400, 'invalid_dpop_proof', error.reason);
    case 'TokenUseDpopNonce':
      return new OAuthError(400, 'use_dpop_nonce', error.reason, { 'DPoP-Nonce': error.nonce });
    case 'OfferEnded':
      return invalidGrant('The offer has ended; ask for a new one.');
    case 'PreAuthorizedCodeUnknown':
      return invalidGrant('The pre-authorized code is unknown.');
    case 'PreAuthorizedCodeExpired':
      return invalidGrant('The pre-authorized code has expired.');
    case 'PreAuthorizedCodeUsed':
      return invalidGrant('The pre-authorized code was already used.');
    case 'PreAuthorizedCodeRace':
      return invalidGrant('The pre-authorized code was used concurrently; it can be redeemed once.');
    case 'TxCodeNotExpected':
      return invalidRequest('This offer has no transaction code; do not send tx_code.');
    case 'TxCodeRequired':
      return invalidRequest('This offer requires tx_code.');
    case 'TxCodeWrong':
      return invalidGrant('The transaction code is wrong.');
    case 'AuthorizationCodeUnknown':
      return invalidGrant('The authorization code is unknown or expired.');
    case 'AuthorizationCodeExpired':
      return invalidGrant('The authorization code has expired with its offer.');
    case 'AuthorizationCodeUsed':
      return invalidGrant('The authorization code was already used.');
    case 'AuthorizationCodeRace':
      return invalidGrant('The authorization code was used concurrently; it can be redeemed once.');
    case 'RedirectUriMismatch':
      return invalidGrant('redirect_uri is not the one of the authorization request.');
    case 'CodeVerifierMismatch':
      return invalidGrant('code_verifier does not match the code_challenge.');
    case 'ClientMismatch':
      return invalidGrant('The code was issued to another client.');
    // RFC 9449 section 10 says only to reject; invalid_dpop_proof tells the wallet its proof is what is wrong, and the code, unspent, still works with the bound key.
    case 'DpopKeyMismatch':
      return new OAuthError(
        400,
        'invalid_dpop_proof',
        'The DPoP proof is not signed with the key the authorization code is bound to (the DPoP key of the pushed authorization request, or its dpop_jkt).',
      );
  }
};
