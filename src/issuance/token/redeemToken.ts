// The token step (RFC 6749 section 5.1, OpenID4VCI section 6, RFC 9449 for DPoP, HAIP 1.0 section
// 4) as a use case, apart from its HTTP edge (./route.ts), for either grant:
// - pre-authorized code: the wallet authenticates with its attestation when WALLET_ATTESTATION
//   says so or it chooses to; a code is redeemed once, a wrong transaction code is counted, and
//   the last allowed wrong one fails the offer.
// - authorization code: the wallet authenticates with its attestation, proves the PKCE verifier,
//   names the redirect_uri of its pushed request, and binds the token to its DPoP key with a proof
//   carrying the server's nonce; a code bound to a DPoP key (RFC 9449 section 10.1) needs a proof
//   of that key, and refused for another it stays unspent; a code sent again is refused and
//   revokes the token it was redeemed for.
// The attestation is checked first, then the DPoP proof (a bad one changes nothing about the
// offer), then the attestation's PoP is spent; the decision on the code is the offer decider's,
// appended at the revision read, as the issuer the request came to sees it: a code of an offer made
// at another credential issuer is unknown here.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { offerAtIssuer, offerStream, startedAuthorization, type Command, type DomainError, type OfferEvent } from '../../../streams/offer.js';
import { logRef } from '../../../streams/kernel.js';
import type { Config } from '../../config/config.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import { newOfferSecret, offerOfPreAuthorizedCode, parseOfferSecret, txCodeHash } from '../codes.js';
import { endpointUrl, PATHS, type IssuanceContext } from '../context.js';
import { verifyDpopProof } from '../dpop.js';
import { currentDpopNonce, isFreshDpopNonce } from '../dpopNonce.js';
import { purgeClaims } from '../offerEnd.js';
import { attestWallet, type AttestationHeaders, type WalletRequestPorts, type WalletUnauthenticated } from '../walletAttestation.js';
import type { TokenRequest, TokenRequestError } from './request.js';

/** What the token step uses of the issuance feature. */
export type TokenPorts = WalletRequestPorts & Pick<IssuanceContext, 'store' | 'dataKeys' | 'secrets' | 'log' | 'now' | 'walletPolicyOf'> & {
  readonly config: Pick<Config, 'proofMaxAgeSeconds' | 'txCodeMaxAttempts'>;
};

/** A token request as the edge received it. */
export interface TokenRequestInput extends AttestationHeaders {
  readonly request: TokenRequest;
  /** The `DPoP` header as received. */
  readonly dpop: string | readonly string[] | undefined;
  readonly metadata: EventMetadata;
}

export type TokenError =
  | TokenRequestError
  | WalletUnauthenticated
  | { readonly _tag: 'TokenDpopProofMissing'; readonly reason: string }
  | { readonly _tag: 'TokenDpopProofInvalid'; readonly reason: string }
  | { readonly _tag: 'TokenUseDpopNonce'; readonly reason: string; readonly nonce: string }
  | { readonly _tag: 'OfferEnded' }
  | { readonly _tag: 'PreAuthorizedCodeUnknown' }
  | { readonly _tag: 'PreAuthorizedCodeExpired' }
  | { readonly _tag: 'PreAuthorizedCodeUsed' }
  | { readonly _tag: 'PreAuthorizedCodeRace' }
  | { readonly _tag: 'TxCodeNotExpected' }
  | { readonly _tag: 'TxCodeRequired' }
  | { readonly _tag: 'TxCodeWrong' }
  | { readonly _tag: 'AuthorizationCodeUnknown' }
  | { readonly _tag: 'AuthorizationCodeExpired' }
  | { readonly _tag: 'AuthorizationCodeUsed' }
  | { readonly _tag: 'AuthorizationCodeRace' }
  | { readonly _tag: 'RedirectUriMismatch' }
  | { readonly _tag: 'CodeVerifierMismatch' }
  | { readonly _tag: 'ClientMismatch' }
  | { readonly _tag: 'DpopKeyMismatch' };

/** The Token Response (RFC 6749 section 5.1): a DPoP-bound access token lasting as long as its offer. */
export interface TokenIssued {
  readonly accessToken: string;
  readonly expiresIn: number;
  /** The DPoP nonce for the wallet's next proof (RFC 9449 section 8). */
  readonly dpopNonce: string;
  /** When the wallet asked with authorization_details: the credential identifiers (OpenID4VCI section 6.2). */
  readonly authorizationDetails: readonly { readonly type: 'openid_credential'; readonly credential_configuration_id: string; readonly credential_identifiers: readonly string[] }[] | undefined;
}

/**
 * The token request's DPoP proof. Bearer tokens are not issued: a request without a proof is
 * malformed, one with a bad proof refused, and one without the nonce `acceptsNonce` wants is told
 * the current one (`use_dpop_nonce`) to try again with.
 */
const dpopProof = async (ports: TokenPorts, input: TokenRequestInput, now: Date, acceptsNonce?: (nonce: unknown) => boolean): Promise<Either<TokenError, string>> => {
  const dpop = await verifyDpopProof(ports.store, {
    proof: input.dpop,
    htm: 'POST',
    htu: endpointUrl(ports.issuer.identifier, PATHS.token),
    now,
    maxAgeSeconds: ports.config.proofMaxAgeSeconds,
    ...(acceptsNonce === undefined ? {} : { acceptsNonce }),
  });
  if (dpop.ok) return right(dpop.jkt);
  if (dpop.useNonce) return left({ _tag: 'TokenUseDpopNonce', reason: dpop.reason, nonce: currentDpopNonce(ports.secrets, now) });
  return left({ _tag: dpop.missing ? 'TokenDpopProofMissing' : 'TokenDpopProofInvalid', reason: dpop.reason });
};

const issued = (ports: TokenPorts, now: Date, accessToken: string, expiresAt: string, authorizationDetails?: TokenIssued['authorizationDetails']): TokenIssued => ({
  accessToken,
  expiresIn: Math.max(1, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000)),
  dpopNonce: currentDpopNonce(ports.secrets, now),
  authorizationDetails,
});

/** The wallet's answer for each refusal of a pre-authorized code. */
const preAuthorizedRefusal = (error: DomainError): TokenError => {
  switch (error._tag) {
    case 'OfferEnded':
      return { _tag: 'OfferEnded' };
    case 'OfferHasExpired':
      return { _tag: 'PreAuthorizedCodeExpired' };
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
      return { _tag: error._tag };
    case 'OfferNotFound':
    case 'OfferExists':
    case 'AccessTokenUnknown':
    case 'NotAuthorizationCodeOffer':
    case 'CredentialConfigurationNotOffered':
    case 'AlreadyAuthorized':
    case 'RequestUriUnknown':
    case 'ClientMismatch':
    case 'AuthorizationUnknown':
    case 'AuthorizationEnded':
    case 'ClaimsRequired':
    case 'ClaimsDiffer':
    case 'AuthorizationCodeUnknown':
    case 'RedirectUriMismatch':
    case 'CodeVerifierMismatch':
    case 'DpopKeyMismatch':
      return { _tag: 'PreAuthorizedCodeUnknown' };
  }
};

/** The wallet's answer for each refusal of an authorization code. */
const authorizationCodeRefusal = (error: DomainError): TokenError => {
  switch (error._tag) {
    case 'OfferEnded':
      return { _tag: 'OfferEnded' };
    case 'OfferHasExpired':
      return { _tag: 'AuthorizationCodeExpired' };
    case 'RedirectUriMismatch':
    case 'CodeVerifierMismatch':
    case 'ClientMismatch':
    case 'DpopKeyMismatch':
      return { _tag: error._tag };
    case 'OfferNotFound':
    case 'OfferExists':
    case 'AccessTokenUnknown':
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
    case 'NotAuthorizationCodeOffer':
    case 'CredentialConfigurationNotOffered':
    case 'AlreadyAuthorized':
    case 'RequestUriUnknown':
    case 'AuthorizationUnknown':
    case 'AuthorizationEnded':
    case 'ClaimsRequired':
    case 'ClaimsDiffer':
    case 'AuthorizationCodeUnknown':
      return { _tag: 'AuthorizationCodeUnknown' };
  }
};

const redeemPreAuthorizedCode = async (
  ports: TokenPorts,
  input: TokenRequestInput,
  request: Extract<TokenRequest, { grant: 'pre-authorized_code' }>,
  now: Date,
): Promise<Either<TokenError, TokenIssued>> => {
  // Wallets of the pre-authorized flow authenticate when WALLET_ATTESTATION says so, or when they choose to.
  // Its PoP is spent after the DPoP proof is checked, as in the authorization code grant.
  // The offer's tenant's policy (its settings, else WALLET_ATTESTATION); an unknown code is refused below, after the same checks.
  const policy = ports.walletPolicyOf(offerOfPreAuthorizedCode(ports.secrets, request.preAuthorizedCode));
  const attested = policy.walletAttestation === 'required' || input.attestation !== undefined;
  const clientId = request.clientId;
  if (attested && isLeft(clientId)) return clientId;
  const attestation = attested ? await attestWallet({ ...ports, walletProviders: policy.walletProviders }, input, isLeft(clientId) ? undefined : clientId.right, now) : undefined;
  if (attestation !== undefined && isLeft(attestation)) return attestation;
  const dpopJkt = await dpopProof(ports, input, now);
  if (isLeft(dpopJkt)) return dpopJkt;
  if (attestation !== undefined) {
    const spent = await attestation.right.spend();
    if (isLeft(spent)) return spent;
  }

  const offerId = offerOfPreAuthorizedCode(ports.secrets, request.preAuthorizedCode);
  if (offerId === undefined) return left({ _tag: 'PreAuthorizedCodeUnknown' });
  const access = newOfferSecret(offerId);
  const redeem: Command = {
    type: 'RedeemPreAuthorizedCode',
    data: {
      offerId,
      txCodeHash: request.txCode === undefined ? undefined : txCodeHash(ports.secrets, offerId, request.txCode),
      accessTokenHash: access.hash,
      dpopJkt: dpopJkt.right,
      wallet: attestation?.right.wallet,
      maxTxCodeAttempts: ports.config.txCodeMaxAttempts,
      at: now.toISOString(),
    },
  };
  const result = await handleCommand(ports.store, offerAtIssuer(ports.issuer.recorded), offerStream(offerId), redeem, { commandId: randomUUID(), metadata: input.metadata });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
        return left(preAuthorizedRefusal(result.left.error));
      case 'store':
        return left({ _tag: 'PreAuthorizedCodeRace' });
    }
  }
  const events = result.right.events;
  if (events.some((e) => e.type === 'OfferFailed')) {
    await purgeClaims(ports, offerId, input.metadata);
    ports.log.info('offer failed', { offerRef: logRef(offerId), reason: 'tx_code attempts exhausted' });
  }
  const [decided] = events;
  if (decided?.type === 'TxCodeRejected') return left({ _tag: 'TxCodeWrong' });
  if (decided?.type !== 'PreAuthorizedCodeRedeemed') throw new Error('token decision recorded neither a redemption nor a rejection');
  ports.log.info('pre-authorized code redeemed', { offerRef: logRef(offerId), ...(decided.data.wallet ? { walletProvider: decided.data.wallet.walletProvider } : {}) });
  return right(issued(ports, now, access.token, decided.data.expiresAt));
};

const redeemAuthorizationCode = async (
  ports: TokenPorts,
  input: TokenRequestInput,
  request: Extract<TokenRequest, { grant: 'authorization_code' }>,
  now: Date,
): Promise<Either<TokenError, TokenIssued>> => {
  // The attestation's PoP is spent only once the DPoP proof carries the current nonce: the wallet's retry after use_dpop_nonce sends the same PoP.
  const clientId = request.clientId;
  if (isLeft(clientId)) return clientId;
  const { walletProviders } = ports.walletPolicyOf(parseOfferSecret(request.code)?.offerId);
  const attestation = await attestWallet({ ...ports, walletProviders }, input, clientId.right, now);
  if (isLeft(attestation)) return attestation;
  const dpopJkt = await dpopProof(ports, input, now, (nonce) => isFreshDpopNonce(ports.secrets, nonce, now));
  if (isLeft(dpopJkt)) return dpopJkt;
  const spent = await attestation.right.spend();
  if (isLeft(spent)) return spent;

  const parsed = parseOfferSecret(request.code);
  if (parsed === undefined) return left({ _tag: 'AuthorizationCodeUnknown' });
  const access = newOfferSecret(parsed.offerId);
  const redeem: Command = {
    type: 'RedeemAuthorizationCode',
    data: {
      offerId: parsed.offerId,
      codeHash: parsed.hash,
      codeChallenge: request.codeChallenge,
      redirectUri: request.redirectUri,
      clientId: attestation.right.wallet.clientId,
      accessTokenHash: access.hash,
      dpopJkt: dpopJkt.right,
      at: now.toISOString(),
    },
  };
  const result = await handleCommand(ports.store, offerAtIssuer(ports.issuer.recorded), offerStream(parsed.offerId), redeem, { commandId: randomUUID(), metadata: input.metadata, retries: 1 });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
        return left(authorizationCodeRefusal(result.left.error));
      case 'store':
        return left({ _tag: 'AuthorizationCodeRace' });
    }
  }
  const redeemed = result.right.events.find((e): e is Extract<OfferEvent, { type: 'AuthorizationCodeRedeemed' }> => e.type === 'AuthorizationCodeRedeemed');
  if (redeemed === undefined) {
    ports.log.warn('authorization code replayed: its access token is revoked', { offerRef: logRef(parsed.offerId) });
    return left({ _tag: 'AuthorizationCodeUsed' });
  }
  ports.log.info('authorization code redeemed', { offerRef: logRef(parsed.offerId) });
  const state = result.right.state;
  const started = state.status !== 'none' && state.grant.grant === 'authorization_code' ? startedAuthorization(state.grant) : null;
  const configurationId = state.status === 'none' ? '' : state.credentialConfigurationId;
  // One credential per offer: its identifier is the configuration's id (OpenID4VCI section 6.2).
  const details = started?.authorization.request.authorizationDetails === true
    ? [{ type: 'openid_credential' as const, credential_configuration_id: configurationId, credential_identifiers: [configurationId] }]
    : undefined;
  return right(issued(ports, now, access.token, redeemed.data.expiresAt, details));
};

export const redeemToken = (ports: TokenPorts, input: TokenRequestInput): Promise<Either<TokenError, TokenIssued>> => {
  const now = ports.now();
  const { request } = input;
  return request.grant === 'authorization_code' ? redeemAuthorizationCode(ports, input, request, now) : redeemPreAuthorizedCode(ports, input, request, now);
};
