// The public routes serving each Status List Token (./publication.ts) at its `uri`: the
// deployment's issuer's at `/status-lists/{list_id}`, a tenant's own issuer's under its identifier
// (`/issuers/{tenant_id}/status-lists/{list_id}`, signed with its active issuer key; 404 while it
// has none). Two representations, chosen by `Accept`: the JWT (the default, also for no `Accept`
// or one naming neither) and the CWT (`application/statuslist+cwt`). Conditional GET by ETag;
// cacheable for the token's `ttl`; open to every origin (the draft asks for CORS). An unknown list
// is answered as a problem through src/issuance/problems.ts.
import Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { noneMatchHits } from '../../http/conditional.js';
import { HttpError } from '../../http/problem.js';
import { STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';
import { TENANT_ISSUER_PREFIX } from '../context.js';
import type { Issuers } from '../issuer.js';
import { problemOf } from '../problems.js';
import { STATUS_LIST_ROUTE } from './paths.js';
import { statusListPublisher, type ListIssuer, type PublicationOptions } from './publication.js';

export const statusListRouter = (options: PublicationOptions, issuers: Pick<Issuers, 'deployment' | 'listIssuerOf'>): Router => {
  const publisher = statusListPublisher(options);
  const serve = async (http: Context, issuer: ListIssuer | undefined): Promise<void> => {
    const mediaType = http.accepts(STATUS_LIST_MEDIA_TYPE, STATUS_LIST_CWT_MEDIA_TYPE) === STATUS_LIST_CWT_MEDIA_TYPE ? STATUS_LIST_CWT_MEDIA_TYPE : STATUS_LIST_MEDIA_TYPE;
    const signed = issuer === undefined ? undefined : await publisher.current(issuer, http.params['list_id'] ?? '', mediaType);
    if (signed === undefined) throw new HttpError(problemOf({ _tag: 'StatusListNotFound' }));
    if (isLeft(signed)) throw new HttpError(problemOf(signed.left));
    const { etag, token: body } = signed.right;
    http.set('Vary', 'Accept');
    http.set('ETag', etag);
    http.set('Cache-Control', `max-age=${options.ttlSeconds}`);
    // Public data, meant for verifiers of every origin (the draft asks for CORS).
    http.set('Access-Control-Allow-Origin', '*');
    if (noneMatchHits(http, etag)) {
      http.status = 304;
      return;
    }
    http.body = typeof body === 'string' ? body : Buffer.from(body);
    // After the body: Koa's body setter would pick text/plain or application/octet-stream.
    http.set('Content-Type', mediaType);
  };
  const router = new Router();
  router.get(STATUS_LIST_ROUTE, (http) => serve(http, issuers.deployment));
  router.get(`${TENANT_ISSUER_PREFIX}${STATUS_LIST_ROUTE}`, async (http) => serve(http, await issuers.listIssuerOf(http.params['tenant_id'] ?? '')));
  return router;
};
