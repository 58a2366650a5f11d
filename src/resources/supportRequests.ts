// Support requests: a tenant asks the operator for something (a data dump, a deletion, a
// rectification, anything else) with `POST /support-requests`, recorded on its own stream with
// the message sealed; it reads its requests back, state and the operator's note included
// (`GET /support-requests`, `GET /support-requests/{id}`), and downloads a DATA_DUMP's archive
// once it is ready (`GET /support-requests/{id}/export`). The operator works them with the ops
// tool (ops/support.ts, src/resources/supportWork.ts).
import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findSupportRequest, listSupportRequests, type SupportRequestRow } from '../../projections/supportRequests.js';
import { MESSAGE, supportExportKeyOwner, supportRequest, supportRequestKeyOwner, supportRequestStream, SupportRequestType, type Command } from '../../streams/supportRequest.js';
import { sealFor } from '../crypto/dataKeys.js';
import { readJson } from '../http/body.js';
import { NonEmptyString, Uuid } from '../http/codecs.js';
import { HttpError, invalidRequest, notFound, problem } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { ExportArchives } from './exportArchives.js';
import { metadataOf } from './routes.js';
import { supportRequestView } from './supportRequestView.js';
import { handleCommand } from '../eventstore/handle.js';

const SupportRequestBody = t.type({ message: t.refinement(NonEmptyString, (s) => s.trim() !== '', 'a non-empty message'), type: SupportRequestType });

const missing = (): HttpError => new HttpError(notFound('No support request of this tenant has this id.'));

const exportGone = (): HttpError =>
  new HttpError(problem(410, '/problems/export-gone', 'Export gone', 'The export archive was deleted at the end of its retention time; file a new DATA_DUMP request.'));

export const supportRequestRoutes = (router: Router, deps: ResourcesContext, archives: ExportArchives): void => {
  const scope = requireScope('resources');

  router.post('/support-requests', scope, async (ctx) => {
    const body = decode(SupportRequestBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, body, async () => {
      const requestId = randomUUID();
      const key = await deps.dataKeys.issue(supportRequestKeyOwner(requestId));
      if (isLeft(key)) throw new Error(`support request data key: ${key.left._tag}`);
      const createdAt = deps.now().toISOString();
      const command: Command = {
        type: 'CreateSupportRequest',
        data: { requestId, tenantId, type: body.type, message: sealFor(key.right, MESSAGE, body.message), at: createdAt },
      };
      // A new id's stream: nothing to read.
      const handled = await handleCommand(deps.store, supportRequest, supportRequestStream(requestId), command, {
        commandId: requestId,
        metadata: metadataOf(ctx),
        loaded: { state: supportRequest.initialState, expectedRevision: 'no_stream' },
      });
      if (isLeft(handled)) throw new Error(`support request not recorded: ${handled.left.error._tag}`);
      await deps.runner.waitFor(handled.right.position!, deps.config.readYourWritesTimeoutMs);
      deps.log.info('support request received', { requestId, type: body.type });
      return { status: 201, body: { id: requestId, type: body.type, created_at: createdAt }, headers: { Location: `/support-requests/${requestId}` } };
    });
  });

  router.get('/support-requests', scope, async (ctx) => {
    const rows = listSupportRequests(deps.runner.db, { tenantId: principalOf(ctx).tenantId });
    ctx.body = { items: await Promise.all(rows.map((row) => supportRequestView(deps.dataKeys, row))) };
  });

  /** The caller's tenant's request the path names; 400 for a malformed id, 404 for another tenant's. */
  const requestOf = (ctx: Context): SupportRequestRow => {
    const id = String(ctx.params['id'] ?? '');
    if (!Uuid.is(id)) throw new HttpError(invalidRequest('The id is not a UUID.', [{ location: 'path.id', message: 'expected a UUID', value: id }]));
    const row = findSupportRequest(deps.runner.db, id.toLowerCase(), principalOf(ctx).tenantId);
    if (!row) throw missing();
    return row;
  };

  router.get('/support-requests/:id', scope, async (ctx) => {
    ctx.body = await supportRequestView(deps.dataKeys, requestOf(ctx));
  });

  router.get('/support-requests/:id/export', scope, async (ctx) => {
    const row = requestOf(ctx);
    if (row.export === null) throw new HttpError(notFound('This support request has no export: only a DATA_DUMP request has one, once the operator made it.'));
    const expired = !row.exportAvailable || row.exportExpiresAt === null || row.exportExpiresAt <= deps.now().toISOString();
    const key = expired ? undefined : await deps.dataKeys.find(supportExportKeyOwner(row.requestId));
    const archive = key && (await archives.read(row.requestId, key));
    if (!archive) throw exportGone();
    ctx.set('Content-Disposition', `attachment; filename="export-${row.requestId}.tar"`);
    ctx.type = 'application/x-tar';
    ctx.body = archive;
  });
};
