// The public route serving each Status List Token (./publication.ts) at its `uri`. Two
// representations, chosen by `Accept`: the JWT (the default, also for no `Accept` or one naming
// neither) and the CWT (`application/statuslist+cwt`). Conditional GET by ETag; cacheable for the
// token's `ttl`; open to every origin (the draft asks for CORS). An unknown list is answered as a
// problem through src/issuance/problems.ts.
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { noneMatchHits } from '../../http/conditional.js';
import { HttpError } from '../../http/problem.js';
import { STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';
import { problemOf } from '../problems.js';
import { STATUS_LIST_ROUTE } from './paths.js';
import { statusListPublisher, type PublicationOptions } from './publication.js';

export const statusListRouter = (options: PublicationOptions): Router => {
  const publisher = statusListPublisher(options);
  const router = new Router();
  router.get(STATUS_LIST_ROUTE, async (http) => {
    const mediaType = http.accepts(STATUS_LIST_MEDIA_TYPE, STATUS_LIST_CWT_MEDIA_TYPE) === STATUS_LIST_CWT_MEDIA_TYPE ? STATUS_LIST_CWT_MEDIA_TYPE : STATUS_LIST_MEDIA_TYPE;
    const signed = await publisher.current(http.params['list_id'] ?? '', mediaType);
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
  });
  return router;
};
