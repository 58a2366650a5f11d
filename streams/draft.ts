// Stream category `draft`: one stream per draft (unsigned credential data) of the resource API,
// `draft-<draft id>`. Every event is one revision of its envelope (streams/resource.ts). The
// claim values and the credential subject are personal data: they are sealed with the draft's
// data key (owner `draft.<draft id>`) and appear in events and read models only as `sealed`.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { eventCodec } from './event.js';
import { JsonObject, sharedEvents, StringMap, resourceKind, type ResourceChange, type Target } from './resource.js';

export const category = 'draft';
export const draftStream = (draftId: string): string => streamName(category, draftId);
export const draftKeyOwner = (draftId: string): string => `draft.${draftId}`;

export const DRAFT_KIND = { name: 'draft', version: 1 } as const;

const Ref = t.type({ digest_multibase: t.string, resource_id: t.string });

/** What a draft records in the clear; `values` and `meta` are in `sealed`. */
export const DraftData = t.type({
  type: t.array(t.string),
  linked_credential_refs: t.array(Ref),
  linked_draft_refs: t.array(t.type({ resource_id: t.string })),
  meta_schema: t.union([t.string, t.null]),
  json_ld_vocabs: t.array(t.string),
  vcdm_json_schemas: t.array(t.string),
  /** The temporary schema given instead of `meta_schema` (0.40), or the 0.38 draft schema. */
  schema: t.union([JsonObject, t.null]),
  /** `{values, meta}` sealed with the draft's data key. */
  sealed: Sealed,
});
export type DraftData = t.TypeOf<typeof DraftData>;

export const DraftCreated = eventCodec(
  'DraftCreated',
  t.type({ draftId: t.string, tenantId: t.string, data: DraftData, annotations: StringMap, labels: StringMap, createdAt: t.string }),
);
/** `PATCH /drafts/{id}`: the whole data after the change. */
export const DraftUpdated = eventCodec('DraftUpdated', t.type({ draftId: t.string, data: DraftData, updatedAt: t.string }));

/** The resource API's shared changes: DraftAnnotationsUpdated, DraftLabelsUpdated, DraftDeleted, DraftRestored, each `{draftId, ...}` (streams/resource.ts). */
const shared = sharedEvents('Draft', 'draftId');

/** Every event a draft stream can hold. */
export const DraftEvent = t.union([DraftCreated, DraftUpdated, ...shared.codecs]);
export type DraftEvent = t.TypeOf<typeof DraftEvent>;

export const draftResourceChange = (event: DraftEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'DraftCreated': {
      const d = event.data;
      return { op: 'created', id: d.draftId, tenantId: d.tenantId, kind: DRAFT_KIND, at: d.createdAt, annotations: d.annotations, labels: d.labels, data: d.data };
    }
    case 'DraftUpdated':
      return { op: 'data', at: event.data.updatedAt, data: event.data.data };
  }
};

type Created = t.TypeOf<typeof DraftCreated>['data'];

/** POST /drafts: `data` already sealed with the draft's data key. */
export type CreateDraft = { readonly type: 'CreateDraft'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };
/** PATCH /drafts/{id}: the whole data after the change. */
export type UpdateDraft = { readonly type: 'UpdateDraft'; readonly data: Target & { readonly draft: DraftData } };

/** The draft kind's rules: created once, then the changes every kind shares and updates (streams/resource.ts). */
export const draft = resourceKind<DraftEvent, CreateDraft, UpdateDraft>({
  category,
  codec: DraftEvent,
  changeOf: draftResourceChange,
  create: { type: 'CreateDraft', created: ({ data: { at, ...created } }) => ({ type: 'DraftCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
  own: ({ data: { id, draft: data, at } }) => ({ type: 'DraftUpdated', data: { draftId: id, data, updatedAt: at } }),
});
