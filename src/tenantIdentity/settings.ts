// A tenant's settings (`/settings`, streams/tenantSettings.ts): the choices that are an
// organisation's, each member named after the environment variable it overrides, in lower case.
// A member is read exactly as its variable is (src/config/config.ts), and the settings a flow
// uses are the tenant's where it set them, else the deployment's (the environment's). The
// callback URL and secret and the authentication URL are the exception: the environment's are
// the bootstrap tenant's alone (another organisation's events and users never go to them), so the
// callback here is the tenant's own and the features fall back as they always did
// (src/callbacks/deliver.ts, src/issuance/tenantAuthentication.ts; docs/tenant-settings.md).
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { Sealed } from '../../streams/dataKey.js';
import { isRecord, type Json } from '../../streams/kernel.js';
import type { ResourceData } from '../../streams/resource.js';
import { singletonId } from '../../streams/singleton.js';
import { tenantStream } from '../../streams/tenant.js';
import { CALLBACK_URL_CHOSEN_BY, SETTINGS_KIND, SETTINGS_MEMBERS, settingsStream, tenantSettings, type SettingsMember } from '../../streams/tenantSettings.js';
import { readVariable, type Config } from '../config/config.js';
import { open, seal } from '../crypto/seal.js';
import { handleCommand, loadStream, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Position } from '../eventstore/port.js';
import type { SqlReader } from '../../projections/projection.js';

/** The variable (its Config key) each member overrides. */
export const SETTING_VARIABLES = {
  x509_trust_policy: 'x509TrustPolicy',
  x509_trust_policy_pid: 'x509TrustPolicyPid',
  x509_trust_policy_qeaa: 'x509TrustPolicyQeaa',
  x509_trust_policy_pub_eaa: 'x509TrustPolicyPubEaa',
  x509_trust_policy_non_qualified_eaa: 'x509TrustPolicyNonQualifiedEaa',
  x509_trust_anchors: 'x509TrustAnchors',
  wallet_attestation: 'walletAttestation',
  wallet_provider_trust_anchors: 'walletProviderTrustAnchors',
  authentication_url: 'authenticationUrl',
  default_redirect_uri: 'defaultRedirectUri',
  offer_ttl_seconds: 'offerTtlSeconds',
  presentation_expires_in: 'presentationExpiresIn',
  status_list_failure_policy: 'statusListFailurePolicy',
  callback_url: 'callbackUrl',
  callback_secret: 'callbackSecret',
} as const satisfies Record<SettingsMember, keyof Config>;

/** The settings whose environment value is every tenant's default. */
export type DefaultedSetting = Exclude<(typeof SETTING_VARIABLES)[SettingsMember], 'authenticationUrl' | 'callbackUrl' | 'callbackSecret'>;

/** A tenant's settings as its flows use them. */
export interface Settings extends Pick<Config, DefaultedSetting> {
  /** The settings' revision (1: nothing set), for caches of what is built from them. */
  readonly revision: number;
  /**
   * The tenant's own callback, if it has one: the secret sealed (openCallbackSecret);
   * `chosenByOperator` when the operator set the URL (`ops callbacks set`), so deliveries to it do
   * not go through the egress guard; a URL the tenant set does, at every delivery.
   */
  readonly callback: { readonly url: string; readonly secret: Sealed; readonly chosenByOperator: boolean } | undefined;
}


export interface TenantSettings {
  /** The tenant's settings now, from the read models. */
  of(tenantId: string): Settings;
}

/** A refusal of one member, named. */
export interface SettingProblem {
  readonly member: string;
  readonly message: string;
}

// The callback secret is a credential, not personal data: sealed with the key-encryption key
// itself, bound to the tenant, as callbacks configured before settings existed were.
const aad = (tenantId: string): string => `tenant-callback-secret/${tenantId}`;
export const sealCallbackSecret = (kek: Buffer, tenantId: string, secret: string): Sealed => seal(kek, Buffer.from(secret, 'utf8'), aad(tenantId));
export const openCallbackSecret = (kek: Buffer, tenantId: string, sealed: Sealed): string => open(kek, sealed, aad(tenantId)).toString('utf8');

/** A JSON value as the text its variable would hold: lists of anchors also as arrays. */
const asText = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  return undefined;
};

/**
 * The members of a `PUT /settings` body read as their variables are: each value, null where not
 * set, the callback secret still in the clear. Every problem named, unknown members too.
 */
export const readSettings = (body: unknown, bounds: Pick<Config, 'presentationExpiresInMin' | 'presentationExpiresInMax'>): Either<SettingProblem[], { readonly [M in SettingsMember]?: Json }> => {
  if (!isRecord(body)) return left([{ member: '(body)', message: 'expected a JSON object' }]);
  const problems: SettingProblem[] = [];
  const values: { [M in SettingsMember]?: Json } = {};
  for (const [member, value] of Object.entries(body)) {
    if (!(SETTINGS_MEMBERS as readonly string[]).includes(member)) {
      problems.push({ member, message: 'unknown member' });
      continue;
    }
    const name = member as SettingsMember;
    if (value === null) continue;
    const text = asText(value);
    const read = text === undefined ? left('expected a string, number or boolean') : readVariable(SETTING_VARIABLES[name], text);
    if (isLeft(read)) {
      problems.push({ member, message: read.left });
      continue;
    }
    values[name] = read.right as Json;
  }
  // The deployment's bounds of a presentation's lifetime stay the deployment's.
  const expiresIn = values.presentation_expires_in;
  if (typeof expiresIn === 'number' && (expiresIn < bounds.presentationExpiresInMin || expiresIn > bounds.presentationExpiresInMax)) {
    problems.push({ member: 'presentation_expires_in', message: `expected ${bounds.presentationExpiresInMin}-${bounds.presentationExpiresInMax} (PRESENTATION_EXPIRES_IN_MIN, PRESENTATION_EXPIRES_IN_MAX)` });
  }
  return problems.length > 0 ? left(problems) : right(values);
};

/** The tenant's settings resource, as the read models hold it (its implicit revision 1: none). */
const recordedSettings = (db: SqlReader, tenantId: string) =>
  findLatest(db, { tenantId, kind: SETTINGS_KIND.name, id: singletonId(SETTINGS_KIND.name, tenantId) });

/** The stored settings over the environment's defaults. */
export const effectiveSettings = (config: Config, data: ResourceData, revision: number): Settings => {
  const own = <M extends SettingsMember>(member: M): Config[(typeof SETTING_VARIABLES)[M]] => (data[member] ?? config[SETTING_VARIABLES[member]]) as Config[(typeof SETTING_VARIABLES)[M]];
  const sealed = Sealed.decode(data['callback_secret']);
  const callbackUrl = data['callback_url'];
  return {
    revision,
    x509TrustPolicy: own('x509_trust_policy'),
    x509TrustPolicyPid: own('x509_trust_policy_pid'),
    x509TrustPolicyQeaa: own('x509_trust_policy_qeaa'),
    x509TrustPolicyPubEaa: own('x509_trust_policy_pub_eaa'),
    x509TrustPolicyNonQualifiedEaa: own('x509_trust_policy_non_qualified_eaa'),
    // Extra anchors: the tenant's are added to the deployment's.
    x509TrustAnchors: [...config.x509TrustAnchors, ...((data['x509_trust_anchors'] as readonly string[] | null) ?? [])],
    walletAttestation: own('wallet_attestation'),
    walletProviderTrustAnchors: own('wallet_provider_trust_anchors'),
    defaultRedirectUri: own('default_redirect_uri'),
    offerTtlSeconds: own('offer_ttl_seconds'),
    presentationExpiresIn: own('presentation_expires_in'),
    statusListFailurePolicy: own('status_list_failure_policy'),
    callback:
      typeof callbackUrl === 'string' && !isLeft(sealed)
        ? { url: callbackUrl, secret: sealed.right, chosenByOperator: data[CALLBACK_URL_CHOSEN_BY] === 'operator' }
        : undefined,
  };
};

/** Every tenant's settings from the read models, over `config`'s defaults. */
export const tenantSettingsOf = (db: () => SqlReader, config: Config): TenantSettings => ({
  of: (tenantId) => {
    const recorded = recordedSettings(db(), tenantId);
    return effectiveSettings(config, recorded?.data ?? {}, recorded?.revision ?? 1);
  },
});

/** When a tenant was created (the time of its settings' implicit revision 1), or undefined for no such tenant. */
export const tenantCreatedAt = async (store: EventStore, tenantId: string): Promise<string | undefined> => {
  const read = await store.readStream(tenantStream(tenantId), { maxCount: 1 });
  const first = read._tag === 'Found' ? read.events[0] : undefined;
  const data = first?.type === 'TenantCreated' && isRecord(first.data) ? first.data['createdAt'] : undefined;
  return typeof data === 'string' ? data : undefined;
};

export type ChangeSettingsError = AppendError | { readonly _tag: 'TenantNotFound'; readonly tenantId: string };

/** Lost races decided again: the change is re-read on the settings as they now are. */
const RACE_RETRIES = 3;

/**
 * A change of some members made without If-Match, by the operator's tool (`ops callbacks set`):
 * `change` maps the current data to the members it sets; the others stay. Nothing is appended
 * when nothing changes.
 */
export const changeSettings = async (
  store: EventStore,
  tenantId: string,
  change: (current: ResourceData) => ResourceData,
  metadata: EventMetadata,
): Promise<Either<ChangeSettingsError, { readonly data: ResourceData; readonly position: Position | undefined }>> => {
  const createdAt = await tenantCreatedAt(store, tenantId);
  if (createdAt === undefined) return left({ _tag: 'TenantNotFound', tenantId });
  const stream = settingsStream(tenantId);
  const id = singletonId(SETTINGS_KIND.name, tenantId);
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadStream(store, tenantSettings, stream);
    if (isLeft(loaded)) return loaded;
    const current = tenantSettings.envelopeOf(loaded.right.state)?.data ?? {};
    const next = { ...current, ...change(current) };
    if ([...SETTINGS_MEMBERS, CALLBACK_URL_CHOSEN_BY].every((m) => JSON.stringify(next[m] ?? null) === JSON.stringify(current[m] ?? null))) return right({ data: current, position: undefined });
    const at = new Date().toISOString();
    const command = { type: 'ReplaceSettings' as const, data: { tenantId, id, ifMatch: () => true, at, tenantCreatedAt: createdAt, settings: next } };
    const handled = await handleCommand(store, tenantSettings, stream, command, { commandId: randomUUID(), metadata, loaded: loaded.right });
    if (!isLeft(handled)) return right({ data: next, position: handled.right.position });
    const failed = handled.left;
    switch (failed.kind) {
      case 'store':
        if (failed.error._tag === 'WrongExpectedRevision' && attempt < RACE_RETRIES) continue;
        return left(failed.error);
      case 'domain':
        // Neither If-Match nor a deleted singleton can refuse this change.
        throw new Error(`tenant settings change refused: ${failed.error._tag}`);
    }
  }
};
