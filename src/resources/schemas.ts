// The `schemas` kind and published schemas. A schema is a ClaimsSchema with a `slug` and a
// `version`; `PATCH /schemas/{id}/publish` serves it publicly at `data.url` on the public
// listener (so anyone can verify against it, and drafts can name it as `meta_schema`) and
// freezes it: afterwards every change is 409. Published schemas are the schemas so published;
// `POST /published-schemas/search` searches only those.
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { SCHEMA_KIND, schemaStream, schema, type CreateSchema, type PublishSchema, type SchemaEvent } from '../../streams/schema.js';
import type { KindCommand } from '../../streams/resource.js';
import { readJson } from '../http/body.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { etagOfEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { createSchema, CreateBody } from './createSchema.js';
import { problemOf } from './problems.js';
import { createResource, updateRoute, versionedRoutes } from './routes.js';
import { searcher } from './search.js';
import { findPublishedSchema } from '../../projections/resources.js';
import { noneMatchHits } from '../http/conditional.js';

export const schemasKind: VersionedKind<SchemaEvent, KindCommand<CreateSchema, PublishSchema>> = {
  path: 'schemas',
  name: SCHEMA_KIND.name,
  scope: 'resources',
  decider: schema,
  streamOf: schemaStream,
  search: { filters: { slug: 'EQUAL_STRING', version: 'EQUAL_STRING' }, sorts: { DATA_SLUG: 'slug', DATA_VERSION: 'version' } },
};

export const schemaRoutes = (router: Router, deps: ResourcesContext): Router => {
  const scope = requireScope(schemasKind.scope);
  const publicPath = (id: string): string => `/published-schemas/${id}`;

  router.post('/schemas', scope, async (ctx) => {
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const request = { tenantId, data: body.data, annotations: body.annotations ?? {}, labels: body.labels ?? {}, at: deps.now().toISOString() };
      const created = createSchema(deps.runner.db, request);
      if (isLeft(created)) throw problemOf(created.left);
      return createResource(deps, schemasKind, ctx, created.right.data.schemaId, created.right);
    });
  });

  router.patch(
    '/schemas/:id/publish',
    scope,
    updateRoute(schemasKind, deps, async (ctx) => ({ type: 'PublishSchema', data: { url: `${deps.config.publicUrl}${publicPath(String(ctx.params['id']).toLowerCase())}` } })),
  );

  const published = searcher(SCHEMA_KIND.name, schemasKind.search, { only: { member: 'published_at', present: true } });
  router.post('/published-schemas/search', scope, (ctx) => published(ctx, deps.runner.db));
  versionedRoutes(router, schemasKind, deps);

  // Public: anyone holding the URL can read a published schema, not one that is unpublished.
  const publicRouter = new Router();
  publicRouter.get('/published-schemas/:id', (ctx) => {
    const envelope = findPublishedSchema(deps.runner.db, String(ctx.params['id']).toLowerCase());
    if (!envelope) throw new HttpError(notFound());
    const etag = etagOfEnvelope(envelope);
    ctx.set('ETag', etag);
    if (noneMatchHits(ctx, etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = { slug: envelope.data['slug'], version: envelope.data['version'], schema: envelope.data['schema'] };
  });
  return publicRouter;
};
