// Stream category `verifiablepresentation`: one stream per presentation resource of the resource
// API (the resource API specification, "Presentation"), `verifiablepresentation-<id>`. (The
// category `presentation` is the verifier's OpenID4VP sessions.) Every event is one revision of
// its envelope (streams/resource.ts). The presentation itself, an unsigned W3C Verifiable
// Presentation made from the tenant's credentials, is a blob sealed with a data key of its own
// (streams/blob.ts, purpose `presentation`; `digest_multibase` is the plaintext's digest) and is
// shredded like a credential's once the presentation is deleted and past the restore window; the
// events hold what describes it: its types and the credentials it holds.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { sharedEvents, StringMap, resourceKind, type ResourceChange } from './resource.js';

export const category = 'verifiablepresentation';
export const presentationResourceStream = (presentationId: string): string => streamName(category, presentationId);

export const PRESENTATION_KIND = { name: 'presentation', version: 1 } as const;

const Ref = t.type({ digest_multibase: t.string, resource_id: t.string });

/** `data` of a presentation resource, in its wire shape. */
export const PresentationData = t.type({ digest_multibase: t.string, linked_credential_refs: t.array(Ref), type: t.array(t.string) });
export type PresentationData = t.TypeOf<typeof PresentationData>;

export const PresentationCreated = eventCodec(
  'PresentationCreated',
  t.type({ presentationId: t.string, tenantId: t.string, blobId: t.string, data: PresentationData, annotations: StringMap, labels: StringMap, createdAt: t.string }),
);
/** The resource API's shared changes: PresentationAnnotationsUpdated, PresentationLabelsUpdated, PresentationDeleted, PresentationRestored, each `{presentationId, ...}` (streams/resource.ts). */
const shared = sharedEvents('Presentation', 'presentationId');

/** Every event a presentation resource stream can hold. */
export const PresentationResourceEvent = t.union([PresentationCreated, ...shared.codecs]);
export type PresentationResourceEvent = t.TypeOf<typeof PresentationResourceEvent>;

export const presentationResourceChange = (event: PresentationResourceEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  const d = event.data;
  return { op: 'created', id: d.presentationId, tenantId: d.tenantId, kind: PRESENTATION_KIND, at: d.createdAt, annotations: d.annotations, labels: d.labels, data: d.data };
};

type Created = t.TypeOf<typeof PresentationCreated>['data'];

/** A presentation made from the tenant's credentials (POST /presentations). */
export type CreatePresentation = { readonly type: 'CreatePresentation'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };

/** The presentation kind's rules: created once, then the changes every kind shares (streams/resource.ts). */
export const verifiablePresentation = resourceKind<PresentationResourceEvent, CreatePresentation>({
  category,
  codec: PresentationResourceEvent,
  changeOf: presentationResourceChange,
  create: { type: 'CreatePresentation', created: ({ data: { at, ...created } }) => ({ type: 'PresentationCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
});
