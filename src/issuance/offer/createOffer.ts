// Creating a credential offer, and reading its status, as use cases apart from their HTTP edge
// (./routes.ts). The claims are checked against the configuration, sealed with a data key issued
// for this offer, and recorded in OfferCreated together with the Issuance Event OFFER_CREATED. An
// offer of a tenant's own credential issuer records that issuer and the configuration's revision,
// which it is issued with whatever changes after.
import { randomInt, randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findOffer, type OfferRow } from '../../../projections/offers.js';
import type { SqlReader } from '../../../projections/projection.js';
import { offer, offerStream, type Command } from '../../../streams/offer.js';
import { CLAIMS } from '../../../streams/offerFacts.js';
import { JsonObject } from '../../../streams/resource.js';
import { streamRef } from '../../../streams/kernel.js';
import { sealFor } from '../../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import type { Position } from '../../eventstore/port.js';
import type { FieldError } from '../../http/problem.js';
import { validateClaims } from '../claims.js';
import { txCodeHash } from '../codes.js';
import { endpointUrl, PATHS, type IssuanceContext } from '../context.js';
import type { Issuer } from '../issuer.js';
import type { CreateOfferRequest } from './request.js';

// No 0/O, 1/I/L: the user types the text code from another channel.
const TEXT_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export const generateTxCode = (mode: 'numeric' | 'text', length: number): string => {
  const alphabet = mode === 'numeric' ? '0123456789' : TEXT_ALPHABET;
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]!).join('');
};

/** `openid-credential-offer://?credential_offer_uri=...`: what the integrator renders as a QR code. */
export const credentialOfferUri = (credentialIssuer: string, offerId: string): string =>
  `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(endpointUrl(credentialIssuer, PATHS.offer.replace(':offer_id', offerId)))}`;


export type OfferRefused =
  | { readonly _tag: 'UnknownCredentialConfiguration'; readonly id: string }
  | { readonly _tag: 'OfferNotFound' }
  | { readonly _tag: 'NoAuthenticationUrl' }
  | { readonly _tag: 'InvalidClaims'; readonly errors: readonly FieldError[] };

export interface CreatedOffer {
  readonly offerId: string;
  readonly credentialConfigurationId: string;
  /** The transaction code in clear, when one was asked for: only its MAC is recorded. */
  readonly txCode: string | undefined;
  /** The credential issuer identifier the offer was made at. */
  readonly credentialIssuer: string;
  readonly position: Position;
}

/** What creating an offer uses: the store, data keys, the MAC secrets, the issuer the offer is made at (its configurations), the clock and the offer lifetime. */
export type CreateOfferDeps = Pick<IssuanceContext, 'store' | 'dataKeys' | 'secrets' | 'now'> & {
  readonly issuer: Pick<Issuer, 'identifier' | 'recorded' | 'configurations' | 'revisionOf'>;
  readonly offerTtlSeconds: number;
  /** The tenant's authentication page for authorization-code offers that name none. */
  readonly authenticationUrl?: string | undefined;
};

/**
 * Records a new offer for the tenant: its claims checked against the configuration and sealed
 * with a data key issued for it, a transaction code generated when asked for. Refused for a
 * configuration the issuer does not have (never had, or deleted) or claims it does not accept.
 */
export const createOffer = async (
  deps: CreateOfferDeps,
  tenantId: string,
  request: CreateOfferRequest,
  metadata: EventMetadata,
): Promise<Either<OfferRefused, CreatedOffer>> => {
  const { issuer } = deps;
  const configuration = issuer.configurations.get(request.credential_configuration_id);
  const revision = issuer.revisionOf(request.credential_configuration_id);
  if (!configuration) return left({ _tag: 'UnknownCredentialConfiguration', id: request.credential_configuration_id });
  const authorizationCode = request.grant === 'authorization_code';
  // With the authorization code flow the integrator may give the claims once the user has authenticated.
  const claimsLater = authorizationCode && request.claims === undefined;
  const errors = [
    ...(claimsLater ? [] : validateClaims(configuration, request.claims, 'body.claims')),
    ...(authorizationCode && request.tx_code !== undefined ? [{ location: 'body.tx_code', message: 'not with the authorization_code grant', value: request.tx_code }] : []),
    ...(!authorizationCode && request.authentication_url !== undefined
      ? [{ location: 'body.authentication_url', message: 'only with the authorization_code grant', value: request.authentication_url }]
      : []),
  ];
  if (errors.length > 0) return left({ _tag: 'InvalidClaims', errors });
  const authenticationUrl = request.authentication_url ?? deps.authenticationUrl;
  if (authorizationCode && authenticationUrl === undefined) return left({ _tag: 'NoAuthenticationUrl' });
  const offerId = randomUUID();
  const key = await deps.dataKeys.issue(offerId);
  if (isLeft(key)) throw new Error(`data key for a fresh offer id: ${key.left._tag}`);
  const asked = request.tx_code;
  const txCode = asked && generateTxCode(asked.input_mode, asked.length);
  // Read once the data key is issued: the offer's lifetime starts when it is recorded.
  const now = deps.now();
  const create: Command = {
    type: 'CreateOffer',
    data: {
      offerId,
      tenantId,
      credentialConfigurationId: configuration.id,
      // Validated above: an object, unless the claims come at the authorization's completion.
      claims: JsonObject.is(request.claims) ? sealFor(key.right, CLAIMS, request.claims) : null,
      txCode:
        asked && txCode !== undefined
          ? { input_mode: asked.input_mode, length: asked.length, description: asked.description ?? null, hash: txCodeHash(deps.secrets, offerId, txCode) }
          : null,
      expiresAt: new Date(now.getTime() + deps.offerTtlSeconds * 1000).toISOString(),
      at: now.toISOString(),
      ...(authorizationCode ? { authorizationCode: { authenticationUrl: authenticationUrl! } } : {}),
      ...(issuer.recorded === undefined ? {} : { credentialIssuer: issuer.recorded }),
      ...(revision === undefined ? {} : { configurationRevision: revision }),
    },
  };
  // A fresh id's stream: nothing to read, and the store refuses it at `no_stream` were it taken.
  const result = await handleCommand(deps.store, offer, offerStream(offerId), create, {
    commandId: randomUUID(),
    metadata,
    loaded: { state: offer.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(result)) throw new Error(`${streamRef(offerStream(offerId))} could not be recorded: ${result.left.error._tag}`);
  return right({ offerId, credentialConfigurationId: configuration.id, txCode, credentialIssuer: issuer.identifier, position: result.right.position! });
};


/** The tenant's offer as the read model has it; another tenant's is as unknown as a made-up one. */
export const offerStatus = (db: SqlReader, tenantId: string, offerId: string): Either<OfferRefused, OfferRow> => {
  const row = findOffer(db, tenantId, offerId);
  return row ? right(row) : left({ _tag: 'OfferNotFound' });
};
