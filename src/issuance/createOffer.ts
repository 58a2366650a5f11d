// Management API: POST /offers creates a credential offer; GET /offers/:offer_id reports its
// status. The claims are checked against the configuration, sealed with a data key issued for
// this offer, and recorded in OfferCreated together with the Issuance Event OFFER_CREATED.
import { randomInt, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findOffer } from '../../projections/offers.js';
import { offer, offerStream, type Command } from '../../streams/offer.js';
import { handleCommand } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { NonEmptyString, withMessage } from '../http/codecs.js';
import { HttpError, invalidRequest, notFound, problem } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { requestIdOf } from '../log.js';
import { logRef, streamRef } from '../../streams/kernel.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { validateClaims } from './claims.js';
import { txCodeHash } from './codes.js';
import { endpointUrl, PATHS, type IssuanceContext } from './context.js';

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
  t.partial({ tx_code: TxCodeRequest }),
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
export const credentialOfferUri = (ctx: Pick<IssuanceContext, 'config'>, offerId: string): string =>
  `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(endpointUrl(ctx.config, PATHS.offer.replace(':offer_id', offerId)))}`;

const BODY_LIMIT = 64 * 1024;

export const offersRouter = (ctx: IssuanceContext): Router => {
  const router = new Router();
  router.post('/offers', requireScope('connector'), async (http) => {
    const principal = principalOf(http);
    const body = decode(CreateOfferBody, await readJson(http, { limitBytes: BODY_LIMIT }), 'body');
    const configuration = ctx.configurations.get(body.credential_configuration_id);
    if (!configuration) throw new HttpError(unknownCredentialConfiguration(body.credential_configuration_id));
    const errors = validateClaims(configuration, body.claims, 'body.claims');
    if (errors.length > 0) {
      throw new HttpError(invalidRequest(errors.length === 1 ? `Invalid ${errors[0]!.location}.` : `${errors.length} values are invalid.`, errors));
    }
    const offerId = randomUUID();
    const key = await ctx.dataKeys.issue(offerId);
    if (isLeft(key)) throw new Error(`data key for a fresh offer id: ${key.left._tag}`);
    const txCode = body.tx_code && generateTxCode(body.tx_code.input_mode, body.tx_code.length);
    const now = ctx.now();
    const create: Command = {
      type: 'CreateOffer',
      data: {
        offerId,
        tenantId: principal.tenantId,
        credentialConfigurationId: configuration.id,
        claims: key.right.seal(body.claims as Json, 'claims'),
        txCode:
          body.tx_code && txCode !== undefined
            ? { input_mode: body.tx_code.input_mode, length: body.tx_code.length, description: body.tx_code.description ?? null, hash: txCodeHash(ctx.secrets, offerId, txCode) }
            : null,
        expiresAt: new Date(now.getTime() + ctx.config.offerTtlSeconds * 1000).toISOString(),
        at: now.toISOString(),
      },
    };
    const result = await handleCommand(ctx.store, offer, offerStream(offerId), create, {
      commandId: randomUUID(),
      metadata: { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(http) },
    });
    if (isLeft(result)) throw new Error(`${streamRef(offerStream(offerId))} could not be recorded: ${result.left._tag}`);
    // So that GET /offers/:offer_id right after this answer finds it.
    await ctx.runner.waitFor(result.right.position!, ctx.config.readYourWritesTimeoutMs);
    ctx.log.info('offer created', { offerRef: logRef(offerId), credentialConfigurationId: configuration.id, txCode: txCode !== undefined });
    http.status = 201;
    http.body = {
      offer_id: offerId,
      credential_offer_uri: credentialOfferUri(ctx, offerId),
      ...(txCode === undefined ? {} : { tx_code_value: txCode }),
    };
  });

  router.get('/offers/:offer_id', requireScope('connector'), async (http) => {
    const row = await findOffer(ctx.runner.db, principalOf(http).tenantId, http.params['offer_id'] ?? '');
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
