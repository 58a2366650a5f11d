// The `drafts` kind: unsigned credential data. Values and subject are sealed with the draft's
// data key (streams/draft.ts, src/resources/draftValues.ts) and opened only to answer. The 0.40
// line takes and shows values as `{kind, value}` and a `meta_schema` (a published schema of the
// tenant) or a temporary `schema`; the 0.38 line (X-Service-OAS-Version: 0.38.2) takes and shows
// plain values and requires and returns `schema`. Export turns a revision into an unsigned JSON-LD
// credential. The routes parse, call the use cases (createDraft.ts, updateDraft.ts,
// exportDraft.ts) and answer.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { draft, DRAFT_KIND, draftKeyOwner, draftStream, type CreateDraft, type DraftEvent, type UpdateDraft } from '../../streams/draft.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';
import { apiLineOf } from './oasVersion.js';
import { addressOf, createResource, readableAddressOf, revisionOf, updateRoute, versionedRoutes } from './routes.js';
import { problemOf } from './problems.js';
import { openPrivate } from './draftValues.js';
import { Create038, Create040, createDraft } from './createDraft.js';
import { Patch038, Patch040, updateDraft } from './updateDraft.js';
import { ExportBody, exportDraft } from './exportDraft.js';

export const draftsKind = (deps: Pick<ResourcesContext, 'dataKeys'>): VersionedKind<DraftEvent, KindCommand<CreateDraft, UpdateDraft>> => ({
  path: 'drafts',
  name: DRAFT_KIND.name,
  scope: 'resources',
  decider: draft,
  streamOf: draftStream,
  search: ENVELOPE_ONLY,
  render: async (envelope, line) => {
    const { sealed, schema, ...open } = envelope.data;
    const { values, meta } = openPrivate(await deps.dataKeys.find(draftKeyOwner(envelope.id)), sealed);
    const shownValues = line === '0.38' ? Object.fromEntries(Object.entries(values).map(([name, v]) => [name, v.value])) : values;
    // The 0.40 line no longer returns `schema`.
    return { ...envelope, data: { ...open, meta, values: shownValues, ...(line === '0.38' ? { schema: schema ?? null } : {}) } };
  },
});

export const draftRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = draftsKind(deps);
  const scope = requireScope(kind.scope);

  router.post('/drafts', scope, async (ctx) => {
    const line = apiLineOf(ctx);
    const input = await readJson(ctx, { limitBytes: JSON_LIMIT });
    const body = line === '0.38' ? decode(Create038, input, 'body') : decode(Create040, input, 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, input as Json, async () => {
      const created = await createDraft({ db: deps.runner.db, dataKeys: deps.dataKeys, now: deps.now }, { tenantId, line, body });
      if (isLeft(created)) throw problemOf(created.left);
      return createResource(deps, kind, ctx, created.right.data.draftId, created.right);
    });
  });

  router.patch(
    '/drafts/:id',
    scope,
    updateRoute(
      kind,
      deps,
      async (ctx: Context) => {
        const input = await readJson(ctx, { limitBytes: JSON_LIMIT });
        return apiLineOf(ctx) === '0.38' ? decode(Patch038, input, 'body') : decode(Patch040, input, 'body');
      },
      async (request, ctx) => {
        const updated = await updateDraft(deps, addressOf(ctx, kind), request);
        if (isLeft(updated)) throw problemOf(updated.left);
        return updated.right;
      },
    ),
  );

  router.post('/drafts/:id/revisions/:revision/export', scope, async (ctx) => {
    const address = await readableAddressOf(ctx, deps, kind);
    const revision = revisionOf(ctx);
    const request = decode(ExportBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const exported = await exportDraft({ db: deps.runner.db, dataKeys: deps.dataKeys, now: deps.now }, address, revision, request);
    if (isLeft(exported)) throw problemOf(exported.left);
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(JSON.stringify(exported.right));
  });

  versionedRoutes(router, kind, deps);
};
