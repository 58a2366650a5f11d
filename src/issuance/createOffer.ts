// Management API: POST /offers creates a credential offer; GET /offers/:offer_id reports its
// status. The claims are checked against the configuration, sealed with a data key issued for
// this offer, and recorded in OfferCreated together with the Issuance Event OFFER_CREATED.
import { randomInt, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findOffer } from '../../projections/offers.js';
import { offer, offerStream, type Command } from '../../streams/offer.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { Json, Position } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { NonEmptyString, withMessage } from '../http/codecs.js';
import { HttpError, invalidValues, notFound, problem, type FieldError, type Problem } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { requestIdOf } from '../log.js';
import { logRef, streamRef } from '../../streams/kernel.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { validateClaims } from './claims.js';
import { txCodeHash } from './codes.js';
import { CallbackUrl } from '../config/callbacks.js';
import { endpointUrl, PATHS, type IssuanceContext } from './context.js';
import { tenantAuthenticationUrl } from './tenantAuthentication.js';

export const TX_CODE_LENGTH = { min: 4, max: 16 } as const;

const TxCodeLength = withMessage(
  t.refinement(t.number, (n) => Number.isInteger(n) && n >= TX_CODE_LENGTH.min && n <= TX_CODE_LENGTH.max),
  `expected an integer ${TX_CODE_LENGTH.min}-${TX_CODE_LENGTH.max}`,
);

const TxCodeRequest = t.intersection([
  t.type({ input_mode: withMessage(t.keyof({ numeric: null, text: null }), 'expected "numeric" or "text"'), length: TxCodeLength }),
  t.partial({ description: withMessage(t.refinement(t.string, (s) => s.length <= 300), 'expected a string of at most 300 characters') }),
]);

const CreateOfferBody = t.intersection([
  t.type({ credential_configuration_id: NonEmptyString, claims: t.unknown }),
  t.partial({
    tx_code: TxCodeRequest,
    grant: withMessage(t.keyof({ 'pre-authorized_code': null, authorization_code: null }), 'expected "pre-authorized_code" or "authorization_code"'),
    authentication_url: withMessage(CallbackUrl, 'expected an absolute http(s) URL without credentials or fragment'),
  }),
]);

// No 0/O, 1/I/L: the user types the text code from another channel.
const TEXT_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export const generateTxCode = (mode: 'numeric' | 'text', length: number): string => {
  const alphabet = mode === 'numeric' ? '0123456789' : TEXT_ALPHABET;
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]!).join('');
};

export const unknownCredentialConfiguration = (id: string) =>
  problem(
    422,
    '/problems/unknown_credential_configuration',
    'Unknown credential configuration',
    `No credential configuration "${id}" is configured.`,
    [{ location: 'body.credential_configuration_id', message: 'not a configured credential configuration id', value: id }],
  );

/** `openid-credential-offer://?credential_offer_uri=...`: what the integrator renders as a QR code. */
export const credentialOfferUri = (publicUrl: string, offerId: string): string =>
  `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(endpointUrl(publicUrl, PATHS.offer.replace(':offer_id', offerId)))}`;

const BODY_LIMIT = 64 * 1024;

/** The decoded body; the configuration's id need only be a string here. */
type CreateOfferRequest = Omit<t.TypeOf<typeof CreateOfferBody>, 'credential_configuration_id'> & { readonly credential_configuration_id: string };

export type OfferRefused =
  | { readonly _tag: 'UnknownCredentialConfiguration'; readonly id: string }
  | { readonly _tag: 'NoAuthenticationUrl' }
  | { readonly _tag: 'InvalidClaims'; readonly errors: readonly FieldError[] };

export interface CreatedOffer {
  readonly offerId: string;
  readonly credentialConfigurationId: string;
  /** The transaction code in clear, when one was asked for: only its MAC is recorded. */
  readonly txCode: string | undefined;
  readonly position: Position;
}

/** What creating an offer uses: the store, data keys, the MAC secrets, the configurations, the clock and the offer lifetime. */
export type CreateOfferDeps = Pick<IssuanceContext, 'store' | 'dataKeys' | 'secrets' | 'configurations' | 'now'> & {
  readonly offerTtlSeconds: number;
  /** The tenant's authentication page for authorization-code offers that name none. */
  readonly authenticationUrl?: string | undefined;
};

/**
 * Records a new offer for the tenant: its claims checked against the configuration and sealed
 * with a data key issued for it, a transaction code generated when asked for. Refused for a
 * configuration that is not configured or claims it does not accept.
 */
export const createOffer = async (
  deps: CreateOfferDeps,
  tenantId: string,
  request: CreateOfferRequest,
  metadata: EventMetadata,
): Promise<Either<OfferRefused, CreatedOffer>> => {
  const configuration = deps.configurations.get(request.credential_configuration_id);
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
      claims: claimsLater ? null : key.right.seal(request.claims as Json, 'claims'),
      txCode:
        asked && txCode !== undefined
          ? { input_mode: asked.input_mode, length: asked.length, description: asked.description ?? null, hash: txCodeHash(deps.secrets, offerId, txCode) }
          : null,
      expiresAt: new Date(now.getTime() + deps.offerTtlSeconds * 1000).toISOString(),
      at: now.toISOString(),
      ...(authorizationCode ? { authorizationCode: { authenticationUrl: authenticationUrl! } } : {}),
    },
  };
  // A fresh id's stream: nothing to read, and the store refuses it at `no_stream` were it taken.
  const result = await handleCommand(deps.store, offer, offerStream(offerId), create, {
    commandId: randomUUID(),
    metadata,
    loaded: { state: offer.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(result)) throw new Error(`${streamRef(offerStream(offerId))} could not be recorded: ${result.left._tag}`);
  return right({ offerId, credentialConfigurationId: configuration.id, txCode, position: result.right.position! });
};

const offerRefusal = (refused: OfferRefused): Problem => {
  switch (refused._tag) {
    case 'UnknownCredentialConfiguration':
      return unknownCredentialConfiguration(refused.id);
    case 'NoAuthenticationUrl':
      return problem(
        422,
        '/problems/authentication_url_missing',
        'No authentication URL',
        'Offers with the authorization_code grant need an authentication_url, in the offer or configured for the tenant.',
        [{ location: 'body.authentication_url', message: 'required: the tenant has no authentication URL', value: null }],
      );
    case 'InvalidClaims':
      return invalidValues(refused.errors);
  }
};

export const offersRouter = (issuance: IssuanceContext): Router => {
  const router = new Router();
  router.post('/offers', requireScope('connector'), async (http) => {
    const principal = principalOf(http);
    const body = decode(CreateOfferBody, await readJson(http, { limitBytes: BODY_LIMIT }), 'body');
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(http) };
    const created = await createOffer(
      {
        ...issuance,
        offerTtlSeconds: issuance.config.offerTtlSeconds,
        // Read only when the offer needs it: the pre-authorized flow stays one append.
        ...(body.grant === 'authorization_code' && body.authentication_url === undefined
          ? { authenticationUrl: await tenantAuthenticationUrl(issuance.store, issuance.config, principal.tenantId) }
          : {}),
      },
      principal.tenantId,
      body,
      metadata,
    );
    if (isLeft(created)) throw new HttpError(offerRefusal(created.left));
    const { offerId, txCode } = created.right;
    // So that GET /offers/:offer_id right after this answer finds it.
    await issuance.runner.waitFor(created.right.position, issuance.config.readYourWritesTimeoutMs);
    issuance.log.info('offer created', { offerRef: logRef(offerId), credentialConfigurationId: created.right.credentialConfigurationId, txCode: txCode !== undefined });
    http.status = 201;
    http.body = {
      offer_id: offerId,
      credential_offer_uri: credentialOfferUri(issuance.config.publicUrl, offerId),
      ...(txCode === undefined ? {} : { tx_code_value: txCode }),
    };
  });

  router.get('/offers/:offer_id', requireScope('connector'), (http) => {
    const row = findOffer(issuance.runner.db, principalOf(http).tenantId, http.params['offer_id'] ?? '');
    if (!row) throw new HttpError(notFound('No offer with this id exists for your tenant.'));
    http.body = {
      offer_id: row.offer_id,
      credential_configuration_id: row.credential_configuration_id,
      status: row.status,
      tx_code_required: row.tx_code_required === 1,
      created_at: row.created_at,
      expires_at: row.expires_at,
      ended_at: row.ended_at,
      ...(row.error_details === null ? {} : { error_details: row.error_details }),
      claims_purged: row.claims_purged === 1,
    };
  });
  return router;
};
