// Creating a draft (the use case, no HTTP): the request's wire schema on each API line, the choice
// of its schema (on the 0.40 line exactly one of a temporary `schema` and a `meta_schema` the
// tenant published), and the CreateDraft to record, its values and meta sealed with a data key
// issued for the new draft.
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { isPublishedSchemaUrl } from '../../projections/resources.js';
import { draftKeyOwner, type CreateDraft } from '../../streams/draft.js';
import { JsonObject, StringMap } from '../../streams/resource.js';
import { sealFor, type DataKeys } from '../crypto/dataKeys.js';
import type { Sqlite } from '../sqlite/connection.js';
import type { ApiLine } from './oasVersion.js';
import type { SchemaRefused } from './problems.js';
import { Common, DRAFT_VALUES, kinded, KindedValue, PlainValue, Uri } from './draftValues.js';

const TemporarySchema = t.intersection([t.type({ schema: JsonObject }), t.partial({ slug: t.string, version: t.string })]);
const Data040 = t.partial({ ...Common, values: t.record(t.string, KindedValue), meta_schema: Uri, schema: TemporarySchema });
const Data038 = t.partial({ ...Common, values: t.record(t.string, PlainValue), schema: JsonObject });
const EnvelopeFields = { annotations: StringMap, labels: StringMap };
/** `POST /drafts` on the 0.40 line: the request's body. */
export const Create040 = t.intersection([t.type({ data: Data040 }), t.partial(EnvelopeFields)]);
/** `POST /drafts` on the 0.38 line (X-Service-OAS-Version: 0.38.2): `schema` required, plain values. */
export const Create038 = t.intersection([t.type({ data: t.intersection([Data038, t.type({ schema: JsonObject })]) }), t.partial(EnvelopeFields)]);
export type CreateDraftBody = t.TypeOf<typeof Create040> | t.TypeOf<typeof Create038>;

type CreateData = CreateDraftBody['data'];

/**
 * The new draft's `meta_schema` (null with a temporary `schema`): on the 0.40 line exactly one of
 * the two, and a meta_schema must be a schema the tenant has published.
 */
export const metaSchemaOf = (line: ApiLine, data: CreateData, isPublished: (url: string) => boolean): Either<SchemaRefused, string | null> => {
  const metaSchema = 'meta_schema' in data && typeof data.meta_schema === 'string' ? data.meta_schema : null;
  if (line === '0.40' && (metaSchema === null) === (data.schema === undefined)) return left({ _tag: 'SchemaChoice' });
  if (metaSchema !== null && !isPublished(metaSchema)) return left({ _tag: 'UnpublishedMetaSchema' });
  return right(metaSchema);
};

export interface CreateDraftDeps {
  /** The read models: the tenant's published schemas. */
  readonly db: Sqlite;
  readonly dataKeys: Pick<DataKeys, 'issue'>;
  readonly now: () => Date;
}

export interface CreateDraftRequest {
  readonly tenantId: string;
  readonly line: ApiLine;
  readonly body: CreateDraftBody;
}

/** The CreateDraft of a new draft of the tenant, its personal data sealed; or why its schema is refused. */
export const createDraft = async (deps: CreateDraftDeps, request: CreateDraftRequest): Promise<Either<SchemaRefused, CreateDraft>> => {
  const { tenantId, body } = request;
  const data: CreateData = body.data;
  const chosen = metaSchemaOf(request.line, data, (url) => isPublishedSchemaUrl(deps.db, tenantId, url));
  if (isLeft(chosen)) return chosen;
  const draftId = randomUUID();
  const key = await deps.dataKeys.issue(draftKeyOwner(draftId));
  if (isLeft(key)) throw new Error(`draft data key: ${key.left._tag}`);
  return right({
    type: 'CreateDraft',
    data: {
      draftId,
      tenantId,
      data: {
        type: data.type ?? [],
        linked_credential_refs: data.linked_credential_refs ?? [],
        linked_draft_refs: data.linked_draft_refs ?? [],
        meta_schema: chosen.right,
        json_ld_vocabs: data.json_ld_vocabs ?? [],
        vcdm_json_schemas: data.vcdm_json_schemas ?? [],
        schema: (data.schema as t.TypeOf<typeof JsonObject> | undefined) ?? null,
        sealed: sealFor(key.right, DRAFT_VALUES, { values: kinded(data.values) ?? {}, meta: data.meta ?? {} }),
      },
      annotations: body.annotations ?? {},
      labels: body.labels ?? {},
      at: deps.now().toISOString(),
    },
  });
};
