// The `schemas` kind and published schemas. A schema is a ClaimsSchema with a `slug` and a
// `version`; `PATCH /schemas/{id}/publish` serves it publicly at `data.url` on the public
// listener (so anyone can verify against it, and drafts can name it as `meta_schema`) and
// freezes it: afterwards every change is 409. Published schemas are the schemas so published;
// `POST /published-schemas/search` searches only those.
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { SCHEMA_KIND, schemaStream, ClaimsSchema, schema, type CreateSchema, type PublishSchema, type SchemaEvent } from '../../streams/schema.js';
import { StringMap, type KindCommand } from '../../streams/resource.js';
import { readJson } from '../http/body.js';
import { withMessage } from '../http/codecs.js';
import { conflict, HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Sqlite } from '../sqlite/connection.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { etagOfEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { createResource, updateRoute, versionedRoutes } from './routes.js';
import { searcher } from './search.js';
import { findPublishedSchema, liveSchemaExists } from '../../projections/resources.js';
import { noneMatchHits } from '../http/conditional.js';

export const schemasKind: VersionedKind<SchemaEvent, KindCommand<CreateSchema, PublishSchema>> = {
  path: 'schemas',
  name: SCHEMA_KIND.name,
  scope: 'resources',
  decider: schema,
  streamOf: schemaStream,
  search: { filters: { slug: 'EQUAL_STRING', version: 'EQUAL_STRING' }, sorts: { DATA_SLUG: 'slug', DATA_VERSION: 'version' } },
};

const Slug = withMessage(t.refinement(t.string, (s) => /^[a-z0-9][a-z0-9-]{0,63}$/.test(s)), 'expected 1-64 characters of a-z, 0-9 and -');
const Version = withMessage(t.refinement(t.string, (s) => /^[A-Za-z0-9][A-Za-z0-9.+-]{0,31}$/.test(s)), 'expected 1-32 characters of A-Z, a-z, 0-9, ., + and -');
const CreateBody = t.intersection([
  t.type({ data: t.type({ slug: Slug, version: Version, schema: ClaimsSchema }) }),
  t.partial({ annotations: StringMap, labels: StringMap }),
]);

export interface CreateSchemaRequest {
  readonly tenantId: string;
  readonly data: t.TypeOf<typeof CreateBody>['data'];
  readonly annotations: StringMap;
  readonly labels: StringMap;
  readonly at: string;
}

/** The creation of a new schema; SchemaExists while a live schema of the tenant has its slug and version. */
export const createSchema = (db: Sqlite, request: CreateSchemaRequest): Either<{ readonly _tag: 'SchemaExists' }, CreateSchema> => {
  const { tenantId, data } = request;
  if (liveSchemaExists(db, tenantId, data.slug, data.version)) return left({ _tag: 'SchemaExists' });
  return right({
    type: 'CreateSchema',
    data: { schemaId: randomUUID(), tenantId, ...data, annotations: request.annotations, labels: request.labels, at: request.at },
  });
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
      if (isLeft(created)) throw new HttpError(conflict('A schema with this slug and version exists.'));
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
