// The tenant's did:web document over HTTP (src/resources/didDocument.ts holds the use cases):
// `GET /did` for the tenant itself, `GET /tenants/{tenant id}/did.json` on the public listener,
// where did:web resolves it. Both answer with an ETag and honour If-None-Match.
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Json } from '../eventstore/port.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { noneMatchHits } from '../http/conditional.js';
import type { ResourcesContext } from './context.js';
import { didDocument, publishedDidDocument } from './didDocument.js';
import { problemOf } from './problems.js';

const answer = (ctx: Context, document: Json): void => {
  const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
  ctx.set('ETag', etag);
  if (noneMatchHits(ctx, etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = document;
};

export const tenantDidRoutes = (router: Router, deps: ResourcesContext, kek: Buffer): Router => {
  router.get('/did', requireScope('resources'), (ctx) => answer(ctx, didDocument(deps.config.publicUrl, kek, principalOf(ctx).tenantId)));

  const publicRouter = new Router();
  publicRouter.get('/tenants/:tenantId/did.json', (ctx) => {
    const document = publishedDidDocument({ db: deps.runner.db, publicUrl: deps.config.publicUrl, kek }, String(ctx.params['tenantId']));
    if (isLeft(document)) throw problemOf(document.left);
    answer(ctx, document.right);
  });
  return publicRouter;
};
