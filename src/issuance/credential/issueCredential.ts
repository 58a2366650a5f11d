// The credential step (OpenID4VCI section 8) as a use case, apart from its HTTP edge
// (./route.ts). Checks, in order, each refusing with its own error and recording nothing: the
// DPoP-bound access token (read from the offer stream), the DPoP proof (bound to the token's key,
// `ath`), the request, the key proof and its c_nonce. Then the claims are opened, the credential's
// Status List entry allocated (src/issuance/status/allocation.ts), the credential signed by its
// format's signer (src/issuance/credentialSigner.ts), and CredentialIssued appended at the
// revision read: only if that append wins is the credential handed out, so an offer that expired
// meanwhile never issues. A credential that cannot be issued fails the offer.
import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { authorisedBy, madeAt, offer, offerAtIssuer, offerStream, type Command, type DomainError, type OfferState, type OpenOffer } from '../../../streams/offer.js';
import { CLAIMS } from '../../../streams/offerFacts.js';
import { logRef } from '../../../streams/kernel.js';
import type { Config } from '../../config/config.js';
import { openFor, type DataKey } from '../../crypto/dataKeys.js';
import { KeysUnavailable } from '../../crypto/keyStore.js';
import { handleCommand, loadStream, type EventMetadata, type Loaded } from '../../eventstore/handle.js';
import { parseOfferSecret } from '../codes.js';
import { endpointUrl, PATHS, type AtIssuer, type IssuanceContext } from '../context.js';
import { formatOf, signCredential, type CredentialSigners } from '../credentialSigner.js';
import { verifyDpopProof } from '../dpop.js';
import { currentDpopNonce, isFreshDpopNonce } from '../dpopNonce.js';
import { verifyKeyProof } from '../keyProof.js';
import { purgeClaims } from '../offerEnd.js';
import { askedConfiguration, asksForEncryption, CredentialRequest } from './request.js';

/** What the credential step uses of the issuance feature. */
export type CredentialPorts = Pick<IssuanceContext, 'store' | 'dataKeys' | 'secrets' | 'statusAllocator' | 'log' | 'now'> & AtIssuer & {
  /** The step only signs: each format's signer. */
  readonly formats: CredentialSigners;
  readonly config: Pick<Config, 'proofMaxAgeSeconds' | 'credentialValidityDays'>;
};

/** A credential request as the edge received it. */
export interface CredentialRequestInput {
  /** The `Authorization` header ('' when absent). */
  readonly authorization: string;
  /** Whether the query carries `access_token` (RFC 6750 section 2.3). */
  readonly accessTokenInQuery: boolean;
  /** The `DPoP` header as received. */
  readonly dpop: string | readonly string[] | undefined;
  /** Reads the body, once the token and the DPoP proof are checked. */
  readonly readBody: () => Promise<unknown>;
  readonly metadata: EventMetadata;
}

export type CredentialError =
  | { readonly _tag: 'AccessTokenInQuery' }
  | { readonly _tag: 'DpopAccessTokenMissing' }
  | { readonly _tag: 'AccessTokenUnknown' }
  | { readonly _tag: 'AccessTokenEnded' }
  | { readonly _tag: 'AccessTokenExpired' }
  /** The proof is good but lacks the server's current DPoP nonce (RFC 9449 section 8). */
  | { readonly _tag: 'UseDpopNonce'; readonly reason: string; readonly nonce: string }
  | { readonly _tag: 'CredentialDpopProofInvalid'; readonly reason: string }
  | { readonly _tag: 'EncryptionUnsupported' }
  | { readonly _tag: 'CredentialRequestMalformed'; readonly reason: string }
  | { readonly _tag: 'CredentialConfigurationNotOffered' }
  | { readonly _tag: 'KeyProofInvalid'; readonly reason: string }
  | { readonly _tag: 'KeyProofNonceInvalid'; readonly reason: string }
  /** Signing or what it needs failed: the offer has failed. */
  | { readonly _tag: 'IssuanceFailed' }
  /** The offer changed between the read and the append (the store refused it). */
  | { readonly _tag: 'OfferChanged' };

export interface IssuedCredential {
  readonly credential: string;
  /** The DPoP nonce for the wallet's next proof. */
  readonly dpopNonce: string;
}

/** Why an access token no longer opens its offer. */
const tokenRefusal = (error: DomainError): CredentialError => {
  switch (error._tag) {
    case 'OfferEnded':
      return { _tag: 'AccessTokenEnded' };
    case 'OfferHasExpired':
      return { _tag: 'AccessTokenExpired' };
    case 'OfferExists':
    case 'OfferNotFound':
    case 'AccessTokenUnknown':
    case 'PreAuthorizedCodeUsed':
    case 'TxCodeNotExpected':
    case 'TxCodeRequired':
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
      return { _tag: 'AccessTokenUnknown' };
  }
};

const failOffer = async (ports: CredentialPorts, offerId: string, errorDetails: string, metadata: EventMetadata): Promise<void> => {
  const fail: Command = { type: 'FailOffer', data: { offerId, errorDetails, at: ports.now().toISOString() } };
  const failed = await handleCommand(ports.store, offer, offerStream(offerId), fail, { commandId: randomUUID(), metadata });
  if (!isLeft(failed) && failed.right.events.length > 0) {
    ports.log.warn('offer failed', { offerRef: logRef(offerId), errorDetails });
    await purgeClaims(ports, offerId, metadata);
  }
};

/** The offer the access token opens, as read (its revision is where CredentialIssued is appended). */
const authorised = async (
  ports: CredentialPorts,
  input: CredentialRequestInput,
  now: Date,
): Promise<Either<CredentialError, { readonly accessToken: string; readonly hash: string; readonly loaded: Loaded<OfferState>; readonly state: OpenOffer & { readonly token: { readonly dpopJkt: string } } }>> => {
  // RFC 6750 section 2.3 allows it for bearer tokens; a DPoP token in a URL would end up in logs.
  if (input.accessTokenInQuery) return left({ _tag: 'AccessTokenInQuery' });
  const authorization = /^DPoP ([A-Za-z0-9._~+/-]+=*)$/.exec(input.authorization);
  const accessToken = authorization?.[1];
  if (accessToken === undefined) return left({ _tag: 'DpopAccessTokenMissing' });
  const parsed = parseOfferSecret(accessToken);
  if (!parsed) return left({ _tag: 'AccessTokenUnknown' });
  const loaded = await loadStream(ports.store, offer, offerStream(parsed.offerId));
  // A token of an offer made at another credential issuer opens nothing here.
  if (isLeft(loaded) || !madeAt(loaded.right.state, ports.issuer.recorded)) return left({ _tag: 'AccessTokenUnknown' });
  const open = authorisedBy(loaded.right.state, parsed.offerId, parsed.hash, now.toISOString());
  if (isLeft(open)) return left(tokenRefusal(open.left));
  return right({ accessToken, hash: parsed.hash, loaded: loaded.right, state: open.right });
};

/** Runs one stage of signing; what it throws (but keys that do not answer) becomes `failure`, the reason the integrator reads. */
const stage = async <T>(ports: CredentialPorts, offerId: string, failure: string, run: () => Promise<T> | T): Promise<Either<string, T>> => {
  try {
    return right(await run());
  } catch (err) {
    // Keys that do not answer now fail this request only: the offer stays as it is, to retry.
    if (err instanceof KeysUnavailable) throw err;
    ports.log.error('credential could not be issued', { offerRef: logRef(offerId), err });
    return left(failure);
  }
};

/** The credential, signed by its format's signer; else the reason for the integrator (never an internal message). */
const signed = async (ports: CredentialPorts, state: OpenOffer, key: DataKey | undefined, holderJwk: JWK, now: Date, metadata: EventMetadata): Promise<Either<string, string>> => {
  const { offerId } = state;
  const refused = (failure: string, detail?: string): Either<string, never> => {
    ports.log.error('credential could not be issued', { offerRef: logRef(offerId), reason: detail === undefined ? failure : `${failure}: ${detail}` });
    return left(failure);
  };
  // A tenant's own issuer issues the configuration at the revision the offer recorded.
  const configuration = ports.issuer.configurationAt(state.credentialConfigurationId, state.configurationRevision);
  if (!configuration) return refused('credential configuration no longer configured');
  const sealed = state.claims;
  if (!key || sealed === null) return refused('claims unavailable');
  const claims = await stage(ports, offerId, 'claims unavailable', () => openFor(key, CLAIMS, sealed));
  if (isLeft(claims)) return claims;
  const allocation = 'credential status could not be allocated';
  const status = configuration.status_list === false ? right(undefined) : await stage(ports, offerId, allocation, () => ports.statusAllocator.referenceFor(offerId, state.tenantId, now, metadata, ports.issuer));
  if (isLeft(status)) return status;
  if (status.right !== undefined && isLeft(status.right)) return refused(allocation, status.right.left);
  const reference = status.right?.right;
  return stage(ports, offerId, 'credential signing failed', () =>
    signCredential(ports.formats, formatOf(configuration), ports.issuer.signingKey, {
      issuer: ports.issuer.identifier,
      configuration,
      claims: claims.right,
      holderJwk,
      now,
      validitySeconds: ports.config.credentialValidityDays * 86_400,
      ...(reference === undefined ? {} : { status: reference }),
    }),
  );
};

export const issueCredential = async (ports: CredentialPorts, input: CredentialRequestInput): Promise<Either<CredentialError, IssuedCredential>> => {
  const now = ports.now();
  const opened = await authorised(ports, input, now);
  if (isLeft(opened)) return opened;
  const { accessToken, hash, loaded, state } = opened.right;
  // First of what needs keys: a key store that does not answer fails the request before the proofs are spent.
  const key = await ports.dataKeys.find(state.offerId);

  const dpop = await verifyDpopProof(ports.store, {
    proof: input.dpop,
    htm: 'POST',
    htu: endpointUrl(ports.issuer.identifier, PATHS.credential),
    accessToken,
    now,
    maxAgeSeconds: ports.config.proofMaxAgeSeconds,
    // HAIP's server nonces for the authorization code flow; before the key proof's c_nonce is spent, so the wallet can send that proof again.
    ...(state.grant.grant === 'pre-authorized_code' ? {} : { acceptsNonce: (nonce: unknown) => isFreshDpopNonce(ports.secrets, nonce, now) }),
  });
  if (!dpop.ok && dpop.useNonce) return left({ _tag: 'UseDpopNonce', reason: dpop.reason, nonce: currentDpopNonce(ports.secrets, now) });
  if (!dpop.ok) return left({ _tag: 'CredentialDpopProofInvalid', reason: dpop.reason });
  if (dpop.jkt !== state.token.dpopJkt) return left({ _tag: 'CredentialDpopProofInvalid', reason: 'The DPoP proof is not signed with the key the access token is bound to.' });

  const body = await input.readBody();
  if (asksForEncryption(body)) return left({ _tag: 'EncryptionUnsupported' });
  const request = CredentialRequest.decode(body);
  if (isLeft(request)) return left({ _tag: 'CredentialRequestMalformed', reason: 'Expected {credential_configuration_id, proofs: {jwt: [<key proof>]}}.' });
  if (askedConfiguration(request.right) !== state.credentialConfigurationId) return left({ _tag: 'CredentialConfigurationNotOffered' });
  const [proof, ...more] = request.right.proofs.jwt;
  if (proof === undefined || more.length > 0) return left({ _tag: 'CredentialRequestMalformed', reason: 'Send exactly one key proof: batch issuance is not offered.' });
  const holder = await verifyKeyProof(ports, proof, now);
  if (!holder.ok) return left({ _tag: holder.error === 'invalid_nonce' ? 'KeyProofNonceInvalid' : 'KeyProofInvalid', reason: holder.reason });

  const { offerId } = state;
  const credential = await signed(ports, state, key, holder.jwk, now, input.metadata);
  if (isLeft(credential)) {
    await failOffer(ports, offerId, credential.left, input.metadata);
    return left({ _tag: 'IssuanceFailed' });
  }

  const issue: Command = { type: 'IssueCredential', data: { offerId, accessTokenHash: hash, at: ports.now().toISOString() } };
  // Decided on the stream as read above: if anything was appended since, the append loses the
  // race and the stream is read again (one retry).
  const issued = await handleCommand(ports.store, offerAtIssuer(ports.issuer.recorded), offerStream(offerId), issue, { commandId: randomUUID(), metadata: input.metadata, loaded, retries: 1 });
  if (isLeft(issued)) {
    switch (issued.left.kind) {
      case 'domain':
        return left(tokenRefusal(issued.left.error));
      case 'store':
        return left({ _tag: 'OfferChanged' });
    }
  }
  ports.log.info('credential issued', { offerRef: logRef(offerId), credentialConfigurationId: state.credentialConfigurationId });
  await purgeClaims(ports, offerId, input.metadata);
  return right({ credential: credential.right, dpopNonce: currentDpopNonce(ports.secrets, now) });
};
