// Management API (scope `connector`), the HTTP edge of ./createOffer.ts: POST /offers creates a
// credential offer and answers its `credential_offer_uri` (and the transaction code, once);
// GET /offers/:offer_id reports its status. Errors are answered as problems through
// src/issuance/problems.ts.
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { logRef } from '../../../streams/kernel.js';
import { readJson } from '../../http/body.js';
import { HttpError } from '../../http/problem.js';
import { decode } from '../../http/validate.js';
import { requestIdOf } from '../../log.js';
import type { Config } from '../../config/config.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';
import type { IssuanceContext } from '../context.js';
import { problemOf } from '../problems.js';
import { tenantAuthenticationUrl } from '../tenantAuthentication.js';
import { createOffer, credentialOfferUri, offerStatus } from './createOffer.js';
import { CREATE_OFFER_LIMIT, CreateOfferBody } from './request.js';

/** What the offer routes use of the issuance feature. */
export type OfferPorts = Pick<IssuanceContext, 'store' | 'dataKeys' | 'secrets' | 'issuers' | 'runner' | 'log' | 'now' | 'settings'> & {
  readonly config: Pick<Config, 'readYourWritesTimeoutMs'> & Parameters<typeof tenantAuthenticationUrl>[1];
};

export const offersRouter = (ports: OfferPorts): Router => {
  const router = new Router();
  router.post('/offers', requireScope('connector'), async (http) => {
    const principal = principalOf(http);
    const body = decode(CreateOfferBody, await readJson(http, { limitBytes: CREATE_OFFER_LIMIT }), 'body');
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(http) };
    const created = await createOffer(
      {
        ...ports,
        // The tenant's own credential issuer once it has one, else the deployment's.
        issuer: await ports.issuers.forOffers(principal.tenantId),
        // The tenant's settings, else OFFER_TTL_SECONDS.
        offerTtlSeconds: ports.settings.of(principal.tenantId).offerTtlSeconds,
        // Read only when the offer needs it: the pre-authorized flow stays one append.
        ...(body.grant === 'authorization_code' && body.authentication_url === undefined
          ? { authenticationUrl: await tenantAuthenticationUrl(ports.store, ports.config, principal.tenantId) }
          : {}),
      },
      principal.tenantId,
      body,
      metadata,
    );
    if (isLeft(created)) throw new HttpError(problemOf(created.left));
    const { offerId, txCode } = created.right;
    // So that GET /offers/:offer_id right after this answer finds it.
    await ports.runner.waitFor(created.right.position, ports.config.readYourWritesTimeoutMs);
    ports.log.info('offer created', { offerRef: logRef(offerId), credentialConfigurationId: created.right.credentialConfigurationId, txCode: txCode !== undefined });
    http.status = 201;
    http.body = {
      offer_id: offerId,
      credential_offer_uri: credentialOfferUri(created.right.credentialIssuer, offerId),
      ...(txCode === undefined ? {} : { tx_code_value: txCode }),
    };
  });

  router.get('/offers/:offer_id', requireScope('connector'), (http) => {
    const found = offerStatus(ports.runner.db, principalOf(http).tenantId, http.params['offer_id'] ?? '');
    if (isLeft(found)) throw new HttpError(problemOf(found.left));
    const row = found.right;
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
