// Creating a presentation (the use case, no HTTP): its wire schema, and the CreatePresentation of an
// unsigned W3C Verifiable Presentation (data model 1.1, JSON-LD) of the tenant's live credentials as
// imported, its bytes sealed in a blob of their own (src/resources/blobContent.ts).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { CREDENTIAL_KIND } from '../../streams/credential.js';
import { StringMap, type Envelope } from '../../streams/resource.js';
import { blob, CONTENT_PURPOSE } from '../../streams/blob.js';
import type { CreatePresentation } from '../../streams/verifiablePresentation.js';
import type { Json } from '../eventstore/port.js';
import { Uuid } from '../http/codecs.js';
import type { FieldError } from '../http/problem.js';
import type { Sqlite } from '../sqlite/connection.js';
import { blobOfResource, contentKeyOf, openBlob, runBlobCommand, type BlobContentDeps } from './blobContent.js';
import type { CredentialsRefused } from './problems.js';

const V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';
/** Bound on the credentials one presentation holds. */
export const MAX_PRESENTED_CREDENTIALS = 100;

const Credentials = t.refinement(t.array(Uuid), (ids) => ids.length >= 1 && ids.length <= MAX_PRESENTED_CREDENTIALS, `1 to ${MAX_PRESENTED_CREDENTIALS} credential ids`);
/** `POST /presentations`: the request's body. */
export const CreateBody = t.intersection([t.type({ credentials: Credentials }), t.partial({ type: t.array(t.string), annotations: StringMap, labels: StringMap })]);
export type CreateRequest = t.TypeOf<typeof CreateBody>;

export interface CreatePresentationDeps {
  readonly db: Sqlite;
  readonly content: BlobContentDeps;
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
 * record, held by `holder` (the tenant's DID); or the ids that name no live credential of the tenant, or one whose content is erased.
 */
export const createPresentation = async (deps: CreatePresentationDeps, tenantId: string, holder: string, request: CreateRequest): Promise<Either<CredentialsRefused, CreatePresentation>> => {
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
  const vp = unsignedPresentation(presentationId, holder, types, contents.right);
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
  if (isLeft(made)) throw new Error(`presentation blob not recorded: ${made.left.error._tag}`);
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
