// The token endpoint's authorization_code grant (RFC 6749 section 4.1.3, OpenID4VCI section 6.1,
// HAIP 1.0 section 4): the wallet authenticates with its attestation (its PoP spent after the DPoP
// proof and nonce are checked), proves the PKCE verifier,
// names the redirect_uri of its pushed request, and binds the token to its DPoP key with a proof
// carrying the server's nonce; a code bound to a DPoP key at PAR (RFC 9449 section 10.1) needs a
// proof of that key, and refused for another it stays unspent. The offer's decider takes the decision; a code sent again is
// refused and revokes the token it was redeemed for.
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { offer, offerStream, startedAuthorization, type Command, type DomainError, type OfferEvent } from '../../streams/offer.js';
import { logRef } from '../../streams/kernel.js';
import { handleCommand } from '../eventstore/handle.js';
import type { FormFields } from '../http/body.js';
import { requestIdOf } from '../log.js';
import { newOfferSecret, parseOfferSecret } from './codes.js';
import type { IssuanceContext } from './context.js';
import { isFreshDpopNonce } from './dpopNonce.js';
import { single } from './form.js';
import { invalidGrant, invalidRequest, OAuthError } from '../http/oauthError.js';
import { challengeOf } from './pkce.js';
import { answerToken, tokenRequestDpopProof } from './tokenAnswer.js';
import { checkAttestedWallet } from './walletAttestation.js';

const refusal = (error: DomainError): OAuthError => {
  switch (error._tag) {
    case 'OfferEnded':
      return invalidGrant('The offer has ended; ask for a new one.');
    case 'OfferHasExpired':
      return invalidGrant('The authorization code has expired with its offer.');
    case 'RedirectUriMismatch':
      return invalidGrant('redirect_uri is not the one of the authorization request.');
    case 'CodeVerifierMismatch':
      return invalidGrant('code_verifier does not match the code_challenge.');
    case 'ClientMismatch':
      return invalidGrant('The code was issued to another client.');
    // RFC 9449 section 10 says only to reject; invalid_dpop_proof tells the wallet its proof is what is wrong, and the code, unspent, still works with the bound key.
    case 'DpopKeyMismatch':
      return new OAuthError(400, 'invalid_dpop_proof', 'The DPoP proof is not signed with the key the authorization code is bound to (the DPoP key of the pushed authorization request, or its dpop_jkt).');
    default:
      return invalidGrant('The authorization code is unknown or expired.');
  }
};


export const authorizationCodeGrant = async (issuance: IssuanceContext, http: Context, fields: FormFields): Promise<void> => {
  const code = single(fields, 'code');
  if (code === undefined) throw invalidRequest('code is required.');
  const verifier = single(fields, 'code_verifier');
  if (verifier === undefined) throw invalidRequest('code_verifier is required (PKCE).');
  const redirectUri = single(fields, 'redirect_uri');
  if (redirectUri === undefined) throw invalidRequest('redirect_uri is required.');
  const codeChallenge = challengeOf(verifier);
  if (codeChallenge === undefined) throw invalidRequest('code_verifier must be 43-128 characters of [A-Za-z0-9-._~].');

  const now = issuance.now();
  // The attestation's PoP is spent only once the DPoP proof carries the current nonce: the wallet's retry after use_dpop_nonce sends the same PoP.
  const { wallet, spend } = await checkAttestedWallet(issuance, http.headers, single(fields, 'client_id'), now);
  const dpop = await tokenRequestDpopProof(issuance, http, now, (nonce) => isFreshDpopNonce(issuance.secrets, nonce, now));
  await spend();

  const parsed = parseOfferSecret(code);
  if (parsed === undefined) throw invalidGrant('The authorization code is unknown or expired.');
  const access = newOfferSecret(parsed.offerId);
  const redeem: Command = {
    type: 'RedeemAuthorizationCode',
    data: {
      offerId: parsed.offerId,
      codeHash: parsed.hash,
      codeChallenge,
      redirectUri,
      clientId: wallet.clientId,
      accessTokenHash: access.hash,
      dpopJkt: dpop.jkt,
      at: now.toISOString(),
    },
  };
  const metadata = { actor: 'wallet', requestId: requestIdOf(http) };
  const result = await handleCommand(issuance.store, offer, offerStream(parsed.offerId), redeem, { commandId: randomUUID(), metadata, retries: 1 });
  if (isLeft(result)) throw 'offerId' in result.left ? refusal(result.left) : invalidGrant('The authorization code was used concurrently; it can be redeemed once.');
  const redeemed = result.right.events.find((e): e is Extract<OfferEvent, { type: 'AuthorizationCodeRedeemed' }> => e.type === 'AuthorizationCodeRedeemed');
  if (redeemed === undefined) {
    issuance.log.warn('authorization code replayed: its access token is revoked', { offerRef: logRef(parsed.offerId) });
    throw invalidGrant('The authorization code was already used.');
  }
  issuance.log.info('authorization code redeemed', { offerRef: logRef(parsed.offerId) });
  const state = result.right.state;
  const started = state.status !== 'none' && state.grant.grant === 'authorization_code' ? startedAuthorization(state.grant) : null;
  const askedDetails = started?.authorization.request.authorizationDetails === true;
  const configurationId = state.status === 'none' ? '' : state.credentialConfigurationId;
  // One credential per offer: its identifier is the configuration's id (OpenID4VCI section 6.2).
  const details = askedDetails ? { authorization_details: [{ type: 'openid_credential', credential_configuration_id: configurationId, credential_identifiers: [configurationId] }] } : {};
  answerToken(http, issuance.secrets, now, { accessToken: access.token, expiresAt: redeemed.data.expiresAt }, details);
};
