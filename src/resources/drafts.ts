// The `drafts` kind: unsigned credential data. Values and subject are sealed with the draft's
// data key (streams/draft.ts) and opened only to answer. The 0.40 line takes and shows values as
// `{kind, value}` and a `meta_schema` (a published schema of the tenant) or a temporary `schema`;
// the 0.38 line (X-Service-OAS-Version: 0.38.2) takes and shows plain values and requires and
// returns `schema`. Export turns a revision into an unsigned JSON-LD credential.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findRevision, isPublishedSchemaUrl } from '../../projections/resources.js';
import { sealedFor, sealedPurpose } from '../../streams/dataKey.js';
import { draft, DRAFT_KIND, DraftData, draftKeyOwner, draftStream, type CreateDraft, type DraftEvent, type UpdateDraft } from '../../streams/draft.js';
import { JsonArray, JsonObject, JsonValue, StringMap, type Envelope } from '../../streams/resource.js';
import { openFor, sealFor, type DataKey } from '../crypto/dataKeys.js';
import { loadStream } from '../eventstore/handle.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { IsoDateTime } from '../http/codecs.js';
import { HttpError, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';
import { apiLineOf, type ApiLine } from './oasVersion.js';
import { addressOf, createResource, readableAddressOf, revisionOf, updateRoute, versionedRoutes } from './routes.js';
import { claimValue } from './verifiableCredential.js';
import { problemOf, type SchemaRefused } from './problems.js';

const V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';

const Uri = t.refinement(t.string, (s) => URL.canParse(s), 'a URI');
// Exact: members the API does not define are dropped, never stored (they would be sealed and echoed back).
const Meta = t.exact(t.partial({ subject: t.string, valid_from: IsoDateTime, valid_until: IsoDateTime }));
const PlainValue = t.union([t.string, t.number, t.boolean, t.null, JsonArray, JsonObject]);
const KindedValue = t.refinement(
  t.type({ kind: t.keyof({ STRING: null, NUMBER: null, BOOLEAN: null, ARRAY: null, OBJECT: null, NULL: null }), value: PlainValue }),
  (v) => claimValue(v.value as Json).kind === v.kind,
  'a {kind, value} whose value is of that kind',
);
const Ref = t.type({ digest_multibase: t.string, resource_id: t.string });
const Common = {
  type: t.array(t.string),
  meta: Meta,
  linked_credential_refs: t.array(Ref),
  linked_draft_refs: t.array(t.type({ resource_id: t.string })),
  json_ld_vocabs: t.array(Uri),
  vcdm_json_schemas: t.array(Uri),
};
const TemporarySchema = t.intersection([t.type({ schema: JsonObject }), t.partial({ slug: t.string, version: t.string })]);
const Data040 = t.partial({ ...Common, values: t.record(t.string, KindedValue), meta_schema: Uri, schema: TemporarySchema });
const Data038 = t.partial({ ...Common, values: t.record(t.string, PlainValue), schema: JsonObject });
const EnvelopeFields = { annotations: StringMap, labels: StringMap };
const Create040 = t.intersection([t.type({ data: Data040 }), t.partial(EnvelopeFields)]);
const Create038 = t.intersection([t.type({ data: t.intersection([Data038, t.type({ schema: JsonObject })]) }), t.partial(EnvelopeFields)]);
const Patch040 = t.type({ data: t.partial({ ...Common, values: t.record(t.string, KindedValue) }) });
const Patch038 = t.type({ data: t.partial({ ...Common, values: t.record(t.string, PlainValue) }) });
const ExportBody = t.intersection([t.type({ issuer: Uri }), t.partial({ valid_from: IsoDateTime, valid_until: IsoDateTime })]);

type Values = { [claim: string]: { kind: string; value: Json } };
/** The draft's personal data: its values and meta, sealed with the draft's data key. */
const Private = t.type({ values: t.record(t.string, t.type({ kind: t.string, value: JsonValue })), meta: Meta });
type Private = t.TypeOf<typeof Private>;
const DRAFT_VALUES = sealedPurpose('draft-values', Private);
const SealedValues = sealedFor(DRAFT_VALUES);

/** Values as the request's line writes them, in the stored `{kind, value}` shape. */
const kinded = (values: Record<string, unknown> | undefined): Values | undefined =>
  values === undefined
    ? undefined
    : Object.fromEntries(Object.entries(values).map(([name, v]) => [name, typeof v === 'object' && v !== null && 'kind' in v ? (v as { kind: string; value: Json }) : claimValue(v as Json)]));

const openPrivate = (key: DataKey | undefined, sealed: Json | undefined): Private =>
  // A destroyed key (or none) leaves the draft without its personal data, not broken.
  key && SealedValues.is(sealed) ? openFor(key, DRAFT_VALUES, sealed) : { values: {}, meta: {} };

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

type CreateData = t.TypeOf<typeof Data040> | t.TypeOf<typeof Data038>;

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

export const draftRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = draftsKind(deps);
  const scope = requireScope(kind.scope);

  router.post('/drafts', scope, async (ctx) => {
    const line = apiLineOf(ctx);
    const input = await readJson(ctx, { limitBytes: JSON_LIMIT });
    const body = line === '0.38' ? decode(Create038, input, 'body') : decode(Create040, input, 'body');
    const data: CreateData = body.data;
    const tenantId = principalOf(ctx).tenantId;
    const chosen = metaSchemaOf(line, data, (url) => isPublishedSchemaUrl(deps.runner.db, tenantId, url));
    if (isLeft(chosen)) throw problemOf(chosen.left);
    const metaSchema = chosen.right;
    await deps.idempotent(ctx, input as Json, async () => {
      const draftId = randomUUID();
      const key = await deps.dataKeys.issue(draftKeyOwner(draftId));
      if (isLeft(key)) throw new Error(`draft data key: ${key.left._tag}`);
      const create: CreateDraft = {
        type: 'CreateDraft',
        data: {
          draftId,
          tenantId,
          data: {
            type: data.type ?? [],
            linked_credential_refs: data.linked_credential_refs ?? [],
            linked_draft_refs: data.linked_draft_refs ?? [],
            meta_schema: metaSchema,
            json_ld_vocabs: data.json_ld_vocabs ?? [],
            vcdm_json_schemas: data.vcdm_json_schemas ?? [],
            schema: (data.schema as t.TypeOf<typeof JsonObject> | undefined) ?? null,
            sealed: sealFor(key.right, DRAFT_VALUES, { values: kinded(data.values) ?? {}, meta: data.meta ?? {} }),
          },
          annotations: body.annotations ?? {},
          labels: body.labels ?? {},
          at: deps.now().toISOString(),
        },
      };
      return createResource(deps, kind, ctx, draftId, create);
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
        const address = addressOf(ctx, kind);
        // The merge starts from the stream; the update then appends only if If-Match still names it.
        const loaded = await loadStream(deps.store, draft, draftStream(address.id));
        const current = isLeft(loaded) || loaded.right.state.status === 'none' ? undefined : loaded.right.state.resource;
        if (!current || current.tenantId !== address.tenantId) throw new HttpError(notFound('No resource of this kind has this id.'));
        const key = await deps.dataKeys.find(draftKeyOwner(current.id));
        if (!key) throw new Error('draft data key is gone');
        const before = openPrivate(key, current.data['sealed']);
        const { values, meta, ...clear } = request.data;
        const sealed = sealFor(key, DRAFT_VALUES, { values: kinded(values) ?? before.values, meta: meta ?? before.meta });
        const updated = DraftData.decode({ ...current.data, ...(clear as { [key: string]: Json }), sealed });
        if (isLeft(updated)) throw new Error('a draft update breaks the draft data contract');
        return { type: 'UpdateDraft', data: { draft: updated.right } };
      },
    ),
  );

  router.post('/drafts/:id/revisions/:revision/export', scope, async (ctx) => {
    const found = findRevision(deps.runner.db, await readableAddressOf(ctx, deps, kind), revisionOf(ctx));
    if (!found) throw new HttpError(notFound('No resource of this kind has this id.'));
    const request = decode(ExportBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(JSON.stringify(await exported(deps, found, request)));
  });

  versionedRoutes(router, kind, deps);
};

/** The draft at one revision as an unsigned credential (data model 1.1, JSON-LD). */
const exported = async (deps: Pick<ResourcesContext, 'dataKeys' | 'now'>, envelope: Envelope, request: t.TypeOf<typeof ExportBody>): Promise<Json> => {
  const d = envelope.data;
  const { values, meta } = openPrivate(await deps.dataKeys.find(draftKeyOwner(envelope.id)), d['sealed']);
  const strings = (value: Json | undefined): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const types = strings(d['type']).filter((type) => type !== 'VerifiableCredential');
  const validFrom = request.valid_from ?? meta.valid_from ?? deps.now().toISOString();
  const validUntil = request.valid_until ?? meta.valid_until;
  const schemas = [...(typeof d['meta_schema'] === 'string' ? [d['meta_schema']] : []), ...strings(d['vcdm_json_schemas'])];
  return {
    '@context': [V1_CONTEXT, ...strings(d['json_ld_vocabs'])],
    type: ['VerifiableCredential', ...types],
    issuer: request.issuer,
    issuanceDate: validFrom,
    ...(validUntil ? { expirationDate: validUntil } : {}),
    credentialSubject: { ...(meta.subject ? { id: meta.subject } : {}), ...Object.fromEntries(Object.entries(values).map(([name, v]) => [name, v.value])) },
    ...(schemas.length > 0 ? { credentialSchema: schemas.map((id) => ({ id, type: 'JsonSchema' })) } : {}),
  };
};
