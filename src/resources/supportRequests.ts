// Support requests over HTTP: a tenant asks the operator for something (a data dump, a deletion, a
// rectification, anything else) with `POST /support-requests`, recorded on its own stream with
// the message sealed (src/resources/fileSupportRequest.ts); it reads its requests back, state and
// the operator's note included (`GET /support-requests`, `GET /support-requests/{id}`), and
// downloads a DATA_DUMP's archive once it is ready (`GET /support-requests/{id}/export`;
// src/resources/readSupportRequests.ts). The operator works them with the ops tool (ops/support.ts,
// src/resources/supportWork.ts).
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { HttpError, invalidRequest } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { ExportArchives } from './exportArchives.js';
import { fileSupportRequest, SupportRequestBody } from './fileSupportRequest.js';
import { problemOf } from './problems.js';
import { supportRequestExport, tenantSupportRequest, tenantSupportRequests } from './readSupportRequests.js';
import { metadataOf } from './routes.js';

/** The support request id the path names; 400 when it is not a UUID. */
const requestIdOf = (ctx: Context): string => {
  const id = String(ctx.params['id'] ?? '');
  if (!Uuid.is(id)) throw new HttpError(invalidRequest('The id is not a UUID.', [{ location: 'path.id', message: 'expected a UUID', value: id }]));
  return id.toLowerCase();
};

export const supportRequestRoutes = (router: Router, deps: ResourcesContext, archives: ExportArchives): void => {
  const scope = requireScope('resources');
  const reads = { db: deps.runner.db, dataKeys: deps.dataKeys, archives, now: deps.now };

  router.post('/support-requests', scope, async (ctx) => {
    const body = decode(SupportRequestBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const filed = await fileSupportRequest(deps, tenantId, body, metadataOf(ctx));
      await deps.runner.waitFor(filed.position, deps.config.readYourWritesTimeoutMs);
      deps.log.info('support request received', { requestId: filed.requestId, type: filed.type });
      return { status: 201, body: { id: filed.requestId, type: filed.type, created_at: filed.createdAt }, headers: { Location: `/support-requests/${filed.requestId}` } };
    });
  });

  router.get('/support-requests', scope, async (ctx) => {
    ctx.body = { items: await tenantSupportRequests(reads, principalOf(ctx).tenantId) };
  });

  router.get('/support-requests/:id', scope, async (ctx) => {
    const found = await tenantSupportRequest(reads, principalOf(ctx).tenantId, requestIdOf(ctx));
    if (isLeft(found)) throw problemOf(found.left);
    ctx.body = found.right;
  });

  router.get('/support-requests/:id/export', scope, async (ctx) => {
    const requestId = requestIdOf(ctx);
    const archive = await supportRequestExport(reads, principalOf(ctx).tenantId, requestId);
    if (isLeft(archive)) throw problemOf(archive.left);
    ctx.set('Content-Disposition', `attachment; filename="export-${requestId}.tar"`);
    ctx.type = 'application/x-tar';
    ctx.body = archive.right;
  });
};
