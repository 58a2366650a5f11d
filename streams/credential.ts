// Stream category `credential`: one stream per imported credential of the resource API,
// `credential-<credential id>`. Every event is one revision of its envelope
// (streams/resource.ts). The credential itself (its claims) is not here but in the blob store
// under `digest_multibase`; the events hold what describes it: types, validity, proof type, links.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { sharedEvents, StringMap, resourceKind, type ResourceChange } from './resource.js';

export const category = 'credential';
export const credentialStream = (credentialId: string): string => streamName(category, credentialId);

export const CREDENTIAL_KIND = { name: 'credential', version: 1 } as const;

const Ref = t.type({ digest_multibase: t.string, resource_id: t.string });
const OptionalString = t.union([t.string, t.null]);

/** `data` of a credential resource, in its wire shape (the resource API specification, "Credential"). */
export const CredentialData = t.type({
  data_model: t.type({
    flavor_name: t.string,
    issuanceDate: OptionalString,
    expirationDate: OptionalString,
    proof: t.union([t.type({ id: OptionalString, type: t.string }), t.null]),
    type: t.array(t.string),
  }),
  digest_multibase: t.string,
  linked_credential_refs: t.array(Ref),
  linked_file_refs: t.array(Ref),
  type: t.array(t.string),
  valid_from: OptionalString,
  valid_until: OptionalString,
});
export type CredentialData = t.TypeOf<typeof CredentialData>;

export const CredentialImported = eventCodec(
  'CredentialImported',
  t.type({
    credentialId: t.string,
    tenantId: t.string,
    /** The upload the credential came from (stream `blob-<blob id>`). */
    blobId: t.string,
    /** The draft exported to obtain it, when the importer named one. */
    draftId: OptionalString,
    data: CredentialData,
    annotations: StringMap,
    labels: StringMap,
    importedAt: t.string,
  }),
);

/** The resource API's shared changes: CredentialAnnotationsUpdated, CredentialLabelsUpdated, CredentialDeleted, CredentialRestored, each `{credentialId, ...}` (streams/resource.ts). */
const shared = sharedEvents('Credential', 'credentialId');

/** Every event a credential stream can hold. */
export const CredentialEvent = t.union([CredentialImported, ...shared.codecs]);
export type CredentialEvent = t.TypeOf<typeof CredentialEvent>;

export const credentialResourceChange = (event: CredentialEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  const d = event.data;
  return { op: 'created', id: d.credentialId, tenantId: d.tenantId, kind: CREDENTIAL_KIND, at: d.importedAt, annotations: d.annotations, labels: d.labels, data: d.data };
};

type Created = t.TypeOf<typeof CredentialImported>['data'];

/** A credential imported from an upload (POST /credentials). */
export type ImportCredential = { readonly type: 'ImportCredential'; readonly data: Omit<Created, 'importedAt'> & { readonly at: string } };

/** The credential kind's rules: created once, then the changes every kind shares (streams/resource.ts). */
export const credential = resourceKind<CredentialEvent, ImportCredential>({
  category,
  codec: CredentialEvent,
  changeOf: credentialResourceChange,
  create: { type: 'ImportCredential', created: ({ data: { at, ...created } }) => ({ type: 'CredentialImported', data: { ...created, importedAt: at } }) },
  shared: shared.events,
});
