// The pushed authorization request step (RFC 9126; OpenID4VCI section 5.1, HAIP 1.0 section 4)
// as a use case, apart from its HTTP edge (./route.ts). The wallet authenticates with its
// attestation; a DPoP proof on the request, or `dpop_jkt`, binds the code to that key (RFC 9449
// section 10.1): the token request must prove it. The attestation's PoP is spent once the DPoP
// proof has passed, as at the token endpoint. The request is recorded on the offer's stream with
// the wallet that made it; the answer's request_uri is single use and short-lived, and only its
// hash is recorded.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { offerAtIssuer, offerStream, type Command, type DomainError } from '../../../streams/offer.js';
import { logRef } from '../../../streams/kernel.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import { newOfferSecret } from '../codes.js';
import { endpointUrl, PATHS, type IssuanceContext } from '../context.js';
import { verifyDpopProof } from '../dpop.js';
import { currentDpopNonce } from '../dpopNonce.js';
import { attestWallet, type AttestationHeaders, type WalletRequestPorts, type WalletUnauthenticated } from '../walletAttestation.js';
import type { AuthorizationRequest } from './request.js';

/** RFC 9126 section 2.2: the request_uri's prefix. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** Lifetime of a request_uri: the wallet opens the authorization endpoint right away. */
export const REQUEST_URI_TTL_SECONDS = 60;

/** What the pushed authorization request step uses of the issuance feature. */
export type ParPorts = WalletRequestPorts & Pick<IssuanceContext, 'secrets' | 'log' | 'now' | 'walletPolicyOf'>;

export interface ParInput extends AttestationHeaders {
  readonly request: AuthorizationRequest;
  /** The `DPoP` header as received. */
  readonly dpop: string | readonly string[] | undefined;
  readonly metadata: EventMetadata;
}

export type ParError =
  | WalletUnauthenticated
  | { readonly _tag: 'ParDpopProofInvalid'; readonly reason: string }
  | { readonly _tag: 'OfferForAnotherConfiguration' }
  | { readonly _tag: 'OfferAlreadyAuthorized' }
  | { readonly _tag: 'OfferEndedBeforePush' }
  | { readonly _tag: 'IssuerStateUnknown' }
  | { readonly _tag: 'OfferUnreadable' };

export interface Pushed {
  readonly requestUri: string;
  readonly expiresIn: number;
  /** The nonce the token request's DPoP proof carries (RFC 9449 section 8), saving the wallet a use_dpop_nonce round. */
  readonly dpopNonce: string;
}

const refusal = (error: DomainError): ParError => {
  switch (error._tag) {
    case 'CredentialConfigurationNotOffered':
      return { _tag: 'OfferForAnotherConfiguration' };
    case 'AlreadyAuthorized':
      return { _tag: 'OfferAlreadyAuthorized' };
    case 'OfferEnded':
    case 'OfferHasExpired':
      return { _tag: 'OfferEndedBeforePush' };
    case 'OfferExists':
    case 'OfferNotFound':
    case 'AccessTokenUnknown':
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
    case 'NotAuthorizationCodeOffer':
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
      return { _tag: 'IssuerStateUnknown' };
  }
};

/**
 * The DPoP key the code is bound to (RFC 9449 section 10.1): the request's DPoP proof, checked like
 * any (its jti spent; no server nonce asked for, as the token request that must prove the same key
 * carries one), or its `dpop_jkt`; both must name the same key. Undefined when the wallet names none.
 */
const pushedDpopKey = async (ports: ParPorts, input: ParInput, now: Date): Promise<Either<ParError, string | undefined>> => {
  const { dpopJkt } = input.request;
  if (input.dpop === undefined) return right(dpopJkt);
  const proof = await verifyDpopProof(ports.store, { proof: input.dpop, htm: 'POST', htu: endpointUrl(ports.issuer.identifier, PATHS.par), now, maxAgeSeconds: ports.config.proofMaxAgeSeconds });
  if (!proof.ok) return left({ _tag: 'ParDpopProofInvalid', reason: proof.reason });
  if (dpopJkt !== undefined && dpopJkt !== proof.jkt) return left({ _tag: 'ParDpopProofInvalid', reason: "dpop_jkt is not the thumbprint of the DPoP proof's key." });
  return right(proof.jkt);
};

export const pushAuthorizationRequest = async (ports: ParPorts, input: ParInput): Promise<Either<ParError, Pushed>> => {
  const { request } = input;
  const now = ports.now();
  // The wallet providers the offer's tenant trusts: its settings, else the deployment's.
  const attestation = await attestWallet({ ...ports, walletProviders: ports.walletPolicyOf(request.offerId).walletProviders }, input, request.clientId, now);
  if (isLeft(attestation)) return attestation;
  const dpopJkt = await pushedDpopKey(ports, input, now);
  if (isLeft(dpopJkt)) return dpopJkt;
  const spent = await attestation.right.spend();
  if (isLeft(spent)) return spent;
  const { wallet } = attestation.right;
  const requestUri = newOfferSecret(request.offerId);
  const push: Command = {
    type: 'PushAuthorizationRequest',
    data: {
      offerId: request.offerId,
      requestUriHash: requestUri.hash,
      wallet,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      state: request.state,
      credentialConfigurationIds: [...request.credentialConfigurationIds],
      authorizationDetails: request.authorizationDetails,
      ...(dpopJkt.right === undefined ? {} : { dpopJkt: dpopJkt.right }),
      expiresAt: new Date(now.getTime() + REQUEST_URI_TTL_SECONDS * 1000).toISOString(),
      at: now.toISOString(),
    },
  };
  const result = await handleCommand(ports.store, offerAtIssuer(ports.issuer.recorded), offerStream(request.offerId), push, { commandId: randomUUID(), metadata: input.metadata, retries: 1 });
  if (isLeft(result)) {
    switch (result.left.kind) {
      case 'domain':
        return left(refusal(result.left.error));
      case 'store':
        return left({ _tag: 'OfferUnreadable' });
    }
  }
  ports.log.info('authorization request pushed', { offerRef: logRef(request.offerId), walletProvider: wallet.walletProvider, dpopBound: dpopJkt.right !== undefined });
  return right({ requestUri: `${REQUEST_URI_PREFIX}${requestUri.token}`, expiresIn: REQUEST_URI_TTL_SECONDS, dpopNonce: currentDpopNonce(ports.secrets, now) });
};
