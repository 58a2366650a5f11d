// The `presentations` kind: `POST /presentations {credentials, type?}` makes an unsigned W3C
// Verifiable Presentation (data model 1.1, JSON-LD, as a draft's export makes an unsigned
// credential) holding the tenant's live credentials as imported, with the tenant's DID as holder.
// The presentation is the resource's content (`GET /presentations/{id}/content`), sealed at rest
// like a credential's: a blob of its own with its own data key (src/resources/blobContent.ts),
// `digest_multibase` the plaintext's digest, shredded once the presentation is deleted and past the
// restore window (RESTORE_WINDOW_SECONDS; a restore is refused from then). The resource describes
// it: its types and the credentials it holds. DIDComm messages embed presentations like
// credentials and files.
import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { CREDENTIAL_KIND } from '../../streams/credential.js';
import { StringMap, type Envelope, type KindCommand } from '../../streams/resource.js';
import { blob, CONTENT_PURPOSE } from '../../streams/blob.js';
import { presentationResourceStream, PRESENTATION_KIND, verifiablePresentation, type CreatePresentation, type PresentationResourceEvent } from '../../streams/verifiablePresentation.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { Uuid } from '../http/codecs.js';
import { HttpError, notFound, problem, type FieldError } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Sqlite } from '../sqlite/connection.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { blobOfResource, contentKeyOf, contentOfResource, openBlob, restoreWithinWindow, runBlobCommand, type BlobContentDeps } from './blobContent.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { VersionedKind } from './kind.js';
import { createResource, readableAddressOf, versionedRoutes } from './routes.js';
import { DATA_ID_SORT } from './search.js';
import { tenantDid } from './tenantDid.js';

const V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';
/** Bound on the credentials one presentation holds. */
export const MAX_PRESENTED_CREDENTIALS = 100;

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

const Credentials = t.refinement(t.array(Uuid), (ids) => ids.length >= 1 && ids.length <= MAX_PRESENTED_CREDENTIALS, `1 to ${MAX_PRESENTED_CREDENTIALS} credential ids`);
const CreateBody = t.intersection([t.type({ credentials: Credentials }), t.partial({ type: t.array(t.string), annotations: StringMap, labels: StringMap })]);
type CreateRequest = t.TypeOf<typeof CreateBody>;

/**
 * The credential ids that are no live credential of the tenant (`CredentialsMissing`), or whose
 * content was erased (`CredentialContentGone`), each located in the body.
 */
export type CredentialsRefused = { readonly _tag: 'CredentialsMissing' | 'CredentialContentGone'; readonly refused: readonly FieldError[] };

export interface MakeDeps {
  readonly db: Sqlite;
  readonly content: BlobContentDeps;
  readonly publicUrl: string;
  readonly now: () => Date;
}

/** The unsigned presentation (data model 1.1) of these credentials, as imported, held by `holder`. */
export const unsignedPresentation = (id: string, holder: string, types: readonly string[], credentials: readonly Json[]): Json => ({
  '@context': [V1_CONTEXT],
  id: `urn:uuid:${id}`,
  type: ['VerifiablePresentation', ...types.filter((type) => type !== 'VerifiablePresentation')],
  holder,
  verifiableCredential: [...credentials],
});

/** The content of each credential, opened; or the ones whose content was erased, located. */
const credentialContents = async (content: BlobContentDeps, credentials: readonly Envelope[]): Promise<Either<CredentialsRefused, Json[]>> => {
  const contents: Json[] = [];
  const gone: FieldError[] = [];
  for (const [i, c] of credentials.entries()) {
    const blobId = await blobOfResource(content.store, 'credential', c.id);
    const opened = blobId === undefined ? left('Gone' as const) : await openBlob(content, blobId);
    if (isLeft(opened)) gone.push({ location: `body.credentials[${i}]`, message: "this credential's content was erased", value: c.id });
    else contents.push(JSON.parse((await buffer(opened.right)).toString('utf8')) as Json);
  }
  return gone.length > 0 ? left({ _tag: 'CredentialContentGone', refused: gone }) : right(contents);
};

/**
 * A new presentation of the tenant's live credentials: its bytes sealed in a blob of their own
 * (recorded on the blob's stream as made for the presentation) and the CreatePresentation to
 * record; or the ids that name no live credential of the tenant, or one whose content is erased.
 */
export const makePresentation = async (deps: MakeDeps, tenantId: string, request: CreateRequest): Promise<Either<CredentialsRefused, CreatePresentation>> => {
  const missing: FieldError[] = [];
  const credentials: Envelope[] = [];
  for (const [i, id] of request.credentials.entries()) {
    const found = findLatest(deps.db, { tenantId, kind: CREDENTIAL_KIND.name, id: id.toLowerCase() });
    if (found && found.deletedAt === null) credentials.push(found);
    else missing.push({ location: `body.credentials[${i}]`, message: 'no credential of this tenant has this id', value: id });
  }
  if (missing.length > 0) return left({ _tag: 'CredentialsMissing', refused: missing });
  const contents = await credentialContents(deps.content, credentials);
  if (isLeft(contents)) return contents;
  const presentationId = randomUUID();
  const types = request.type ?? [];
  const vp = unsignedPresentation(presentationId, tenantDid(deps.publicUrl, tenantId), types, contents.right);
  const bytes = Buffer.from(JSON.stringify(vp), 'utf8');
  const blobId = randomUUID();
  const key = await contentKeyOf(deps.content.dataKeys, blobId);
  const stored = await deps.content.blobs.put(blobId, Readable.from([bytes]), bytes.length, key.sealStream(CONTENT_PURPOSE));
  const at = deps.now().toISOString();
  const made = await runBlobCommand(
    deps.content.store,
    blobId,
    { type: 'RecordMadeBlob', data: { blobId, tenantId, purpose: 'presentation', resourceId: presentationId, contentType: 'application/json', uploadedAt: at, at, ...stored } },
    { state: blob.initialState, expectedRevision: 'no_stream' },
  );
  if (isLeft(made)) throw new Error(`presentation blob not recorded: ${made.left._tag}`);
  return right({
    type: 'CreatePresentation',
    data: {
      presentationId,
      tenantId,
      blobId,
      data: {
        digest_multibase: stored.digestMultibase,
        linked_credential_refs: credentials.map((c) => ({ digest_multibase: String(c.data['digest_multibase']), resource_id: c.id })),
        type: ['VerifiablePresentation', ...types.filter((type) => type !== 'VerifiablePresentation')],
      },
      annotations: request.annotations ?? {},
      labels: request.labels ?? {},
      at,
    },
  });
};

const refusal = (refused: CredentialsRefused): HttpError =>
  refused._tag === 'CredentialsMissing'
    ? new HttpError(problem(404, '/problems/not-found', 'Not found', 'A referenced credential does not exist in this tenant.', refused.refused))
    : new HttpError(problem(410, '/problems/content-gone', 'Content gone', "A referenced credential's content was erased.", refused.refused));

export const presentationRoutes = (router: Router, deps: ResourcesContext, content: BlobContentDeps): void => {
  // Restored only within the restore window: past it the content's key is destroyed.
  const kind = { ...presentationsKind, lifecycle: restoreWithinWindow(deps.config.restoreWindowSeconds) };
  const scope = requireScope(kind.scope);

  router.post('/presentations', scope, async (ctx) => {
    const body = decode(CreateBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    await deps.idempotent(ctx, body, async () => {
      const made = await makePresentation({ db: deps.runner.db, content, publicUrl: deps.config.publicUrl, now: deps.now }, principalOf(ctx).tenantId, body);
      if (isLeft(made)) throw refusal(made.left);
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
