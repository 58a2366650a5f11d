// Stream category `tenantsettings`: one stream per tenant, its settings (`/settings`), a singleton
// resource (streams/singleton.ts). Every member is named after the environment variable it
// overrides, in lower case; null means "not set: the deployment's value applies". The callback
// secret is recorded sealed with the key-encryption key (src/callbacks/tenantCallback.ts).
import * as t from 'io-ts';
import { eventCodec } from './event.js';
import { JsonObject, resourceKind, sharedEvents, type ResourceChange, type ResourceData } from './resource.js';
import { implicitRevision, singletonKind, singletonStream, type SingletonTarget } from './singleton.js';

export const category = 'tenantsettings';
export const SETTINGS_KIND = { name: 'settings', version: 1 } as const;

export const settingsStream = (tenantId: string): string => singletonStream(category, SETTINGS_KIND.name, tenantId);

/** The members of the settings, each the lower-case name of the variable it overrides. */
export const SETTINGS_MEMBERS = [
  'x509_trust_policy',
  'x509_trust_policy_pid',
  'x509_trust_policy_qeaa',
  'x509_trust_policy_pub_eaa',
  'x509_trust_policy_non_qualified_eaa',
  'x509_trust_anchors',
  'wallet_attestation',
  'wallet_provider_trust_anchors',
  'authentication_url',
  'default_redirect_uri',
  'offer_ttl_seconds',
  'presentation_expires_in',
  'status_list_failure_policy',
  'callback_url',
  'callback_secret',
] as const;
export type SettingsMember = (typeof SETTINGS_MEMBERS)[number];

/** Every member, each as given or null. */
/**
 * A member only the operator's tool records beside `callback_url` (no PUT /settings may give it):
 * `operator`, the URL was the operator's choice. A PUT that keeps the URL keeps it; one that
 * changes the URL drops it.
 */
export const CALLBACK_URL_CHOSEN_BY = 'callback_url_chosen_by';

const complete = (settings: ResourceData): ResourceData => ({
  ...Object.fromEntries(SETTINGS_MEMBERS.map((m) => [m, settings[m] ?? null])),
  ...(settings[CALLBACK_URL_CHOSEN_BY] === 'operator' ? { [CALLBACK_URL_CHOSEN_BY]: 'operator' } : {}),
});

export const TenantSettingsCreated = eventCodec('TenantSettingsCreated', t.type({ settingsId: t.string, tenantId: t.string, createdAt: t.string }));
/** `PUT /settings`: the whole settings after the change. */
export const TenantSettingsReplaced = eventCodec('TenantSettingsReplaced', t.type({ settingsId: t.string, settings: JsonObject, replacedAt: t.string }));

const shared = sharedEvents('TenantSettings', 'settingsId');

export const TenantSettingsEvent = t.union([TenantSettingsCreated, TenantSettingsReplaced, ...shared.codecs]);
export type TenantSettingsEvent = t.TypeOf<typeof TenantSettingsEvent>;

export const settingsResourceChange = (event: TenantSettingsEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  switch (event.type) {
    case 'TenantSettingsCreated': {
      const d = event.data;
      return { op: 'created', id: d.settingsId, tenantId: d.tenantId, kind: SETTINGS_KIND, at: d.createdAt, annotations: {}, labels: {}, data: complete({}) };
    }
    case 'TenantSettingsReplaced':
      // The whole settings: a member the change no longer holds is gone.
      return { op: 'replaced', at: event.data.replacedAt, data: complete(event.data.settings) };
  }
};

/** `PUT /settings`: every member as it is to be (absent or null: not set). */
export type ReplaceSettings = { readonly type: 'ReplaceSettings'; readonly data: SingletonTarget & { readonly settings: ResourceData } };
type Never = { readonly type: 'CreateTenantSettings'; readonly data: { readonly at: string } };

const created = (tenantId: string, settingsId: string, createdAt: string): TenantSettingsEvent => ({ type: 'TenantSettingsCreated', data: { settingsId, tenantId, createdAt } });

/** The settings' rules: revision 1 with the tenant (implicit until the first change), then each PUT one revision. */
export const tenantSettings = singletonKind(
  resourceKind<TenantSettingsEvent, Never, ReplaceSettings>({
    category,
    codec: TenantSettingsEvent,
    changeOf: settingsResourceChange,
    // Never asked for: revision 1 is recorded by singletonKind with the first change.
    create: { type: 'CreateTenantSettings', created: ({ data: { at } }) => { throw new Error(`tenant settings are not created on their own (${at})`); } },
    shared: shared.events,
    own: ({ data: { id, settings, at } }) => ({ type: 'TenantSettingsReplaced', data: { settingsId: id, settings: complete(settings), replacedAt: at } }),
  }),
  created,
);

/** Revision 1 of the tenant's settings: nothing set, at the tenant's creation. */
export const initialSettings = (tenantId: string, settingsId: string, tenantCreatedAt: string) =>
  implicitRevision(tenantSettings, created(tenantId, settingsId, tenantCreatedAt));
