// Stream category `credentialconfiguration`: one stream per credential configuration a tenant
// issues (issue 38), `credentialconfiguration-<resource id>`. Every event is one revision of its
// envelope (streams/resource.ts); `data` is the configuration itself, in the shape of an entry of
// the CREDENTIAL_CONFIGURATIONS file (src/issuance/configurations.ts checks it at the edge).
//
// The resource id is not fresh: it is derived from the tenant and the configuration's own `id`
// (a name-based UUID, RFC 9562 version 5), so one configuration id of a tenant names one stream and
// one history. An offer records the configuration id and the revision it was made with, and that
// pair finds exactly one revision, even after a delete: a deleted id is restored, never made anew.
import * as t from 'io-ts';
import { nameBasedUuid, streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { JsonObject, sharedEvents, StringMap, resourceKind, type ResourceChange, type ResourceData, type Target } from './resource.js';

export const category = 'credentialconfiguration';
export const credentialConfigurationStream = (resourceId: string): string => streamName(category, resourceId);

export const CREDENTIAL_CONFIGURATION_KIND = { name: 'credential-configuration', version: 1 } as const;

/** This kind's UUID namespace (a random UUID, fixed here: the ids of stored resources derive from it). */
const NAMESPACE = Buffer.from('8b6f2f0c1d9e4c5a9f3e7a2b4c6d8e01', 'hex');

/** The resource id of the tenant's configuration `configurationId`: a version 5 UUID of both (RFC 9562 section 5.5). */
export const configurationResourceId = (tenantId: string, configurationId: string): string => nameBasedUuid(NAMESPACE, `${tenantId}\n${configurationId}`);

export const CredentialConfigurationCreated = eventCodec(
  'CredentialConfigurationCreated',
  t.type({ resourceId: t.string, tenantId: t.string, configuration: JsonObject, annotations: StringMap, labels: StringMap, createdAt: t.string }),
);
/** `PUT /credential-configurations/{id}`: the whole configuration, replacing the one before. */
export const CredentialConfigurationReplaced = eventCodec(
  'CredentialConfigurationReplaced',
  t.type({ resourceId: t.string, configuration: JsonObject, replacedAt: t.string }),
);

/** The shared changes: CredentialConfigurationAnnotationsUpdated, ...LabelsUpdated, ...Deleted, ...Restored, each `{resourceId, ...}`. */
const shared = sharedEvents('CredentialConfiguration', 'resourceId');

export const CredentialConfigurationEvent = t.union([CredentialConfigurationCreated, CredentialConfigurationReplaced, ...shared.codecs]);
export type CredentialConfigurationEvent = t.TypeOf<typeof CredentialConfigurationEvent>;

export const credentialConfigurationResourceChange = (event: CredentialConfigurationEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'CredentialConfigurationCreated': {
      const d = event.data;
      return { op: 'created', id: d.resourceId, tenantId: d.tenantId, kind: CREDENTIAL_CONFIGURATION_KIND, at: d.createdAt, annotations: d.annotations, labels: d.labels, data: d.configuration };
    }
    case 'CredentialConfigurationReplaced':
      return { op: 'replaced', at: event.data.replacedAt, data: event.data.configuration };
  }
};

type Created = t.TypeOf<typeof CredentialConfigurationCreated>['data'];

/** POST /credential-configurations (the configuration checked at the edge). */
export type CreateCredentialConfiguration = {
  readonly type: 'CreateCredentialConfiguration';
  readonly data: Omit<Created, 'createdAt'> & { readonly at: string };
};
/** PUT /credential-configurations/{id}: a new revision holding `configuration`. */
export type ReplaceCredentialConfiguration = {
  readonly type: 'ReplaceCredentialConfiguration';
  readonly data: Target & { readonly configuration: ResourceData };
};

/** The kind's rules: created once, then the changes every kind shares and replacing the configuration (streams/resource.ts). */
export const credentialConfiguration = resourceKind<CredentialConfigurationEvent, CreateCredentialConfiguration, ReplaceCredentialConfiguration>({
  category,
  codec: CredentialConfigurationEvent,
  changeOf: credentialConfigurationResourceChange,
  create: {
    type: 'CreateCredentialConfiguration',
    created: ({ data: { at, ...created } }) => ({ type: 'CredentialConfigurationCreated', data: { ...created, createdAt: at } }),
  },
  shared: shared.events,
  own: ({ data: { id, configuration, at } }) => ({ type: 'CredentialConfigurationReplaced', data: { resourceId: id, configuration, replacedAt: at } }),
});
