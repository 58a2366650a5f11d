// The `presentations` kind: `POST /presentations {credentials, type?}` makes an unsigned W3C
// Verifiable Presentation (created in src/resources/createPresentation.ts) holding the tenant's
// live credentials as imported, with the tenant's DID as holder.
// The presentation is the resource's content (`GET /presentations/{id}/content`), sealed at rest
// like a credential's: a blob of its own with its own data key (src/resources/blobContent.ts),
// `digest_multibase` the plaintext's digest, shredded once the presentation is deleted and past the
// restore window (RESTORE_WINDOW_SECONDS; a restore is refused from then). The resource describes
// it: its types and the credentials it holds. DIDComm messages embed presentations like
// credentials and files.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import type { KindCommand } from '../../streams/resource.js';
import { presentationResourceStream, PRESENTATION_KIND, verifiablePresentation, type CreatePresentation, type PresentationResourceEvent } from '../../streams/verifiablePresentation.js';
import { readJson } from '../http/body.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { contentOfResource, restoreWithinWindow, type BlobContentDeps } from './blobContent.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { createPresentation, CreateBody } from './createPresentation.js';
import type { VersionedKind } from './kind.js';
import { problemOf } from './problems.js';
import { createResource, readableAddressOf, versionedRoutes } from './routes.js';
import { DATA_ID_SORT } from './search.js';
import { tenantDid } from './didDocument.js';

export const presentationsKind: VersionedKind<PresentationResourceEvent, KindCommand<CreatePresentation, never>> = {
  path: 'presentations',
  name: PRESENTATION_KIND.name,
  scope: 'resources',
  decider: verifiablePresentation,
  streamOf: presentationResourceStream,
  search: {
    filters: { digest_multibase: 'EQUAL_STRING', type: 'IN_STRINGS', linked_credentials: { linked: 'linked_credential_refs' } },
    sorts: { DATA_ID: DATA_ID_SORT },
  },
};

export const presentationRoutes = (router: Router, deps: ResourcesContext, content: BlobContentDeps): void => {
  // Restored only within the restore window: past it the content's key is destroyed.
  const kind = { ...presentationsKind, lifecycle: restoreWithinWindow(deps.config.restoreWindowSeconds) };
  const scope = requireScope(kind.scope);

  router.post('/presentations', scope, async (ctx) => {
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    await deps.idempotent(ctx, body, async () => {
      const { tenantId } = principalOf(ctx);
      const made = await createPresentation({ db: deps.runner.db, content, now: deps.now }, tenantId, tenantDid(deps.config.publicUrl, tenantId), body);
      if (isLeft(made)) throw problemOf(made.left);
      return createResource(deps, kind, ctx, made.right.data.presentationId, made.right);
    });
  });

  router.get('/presentations/:id/content', scope, async (ctx) => {
    const found = findLatest(deps.runner.db, await readableAddressOf(ctx, deps, kind));
    if (!found) throw new HttpError(notFound('No resource of this kind has this id.'));
    const opened = await contentOfResource(content, 'presentation', found);
    ctx.type = 'application/json';
    ctx.body = opened;
  });

  versionedRoutes(router, kind, deps);
};
