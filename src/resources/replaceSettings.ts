// Replacing a tenant's settings (the use case, no HTTP; `/settings`, a singleton resource,
// updateSingleton.ts): each member is read as the variable it overrides
// (src/tenantIdentity/settings.ts), and the whole settings are replaced (an absent or null member:
// not set, the deployment's value applies). The callback secret is sealed before it is recorded
// and never answered back: `callback_secret_set` says whether there is one; a change without it
// keeps the one set, as long as `callback_url` stays.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { Sealed } from '../../streams/dataKey.js';
import type { KindCommand, ResourceData } from '../../streams/resource.js';
import { CALLBACK_URL_CHOSEN_BY, initialSettings, SETTINGS_KIND, tenantSettings, type ReplaceSettings, type TenantSettingsEvent } from '../../streams/tenantSettings.js';
import type { Config } from '../config/config.js';
import { checkUrl } from '../egress/egress.js';
import type { Json } from '../eventstore/port.js';
import { readSettings, sealCallbackSecret, type SettingProblem } from '../tenantIdentity/settings.js';
import { singletonKind } from './readSingleton.js';
import type { SingletonChange } from './updateSingleton.js';

type Never = { readonly type: 'CreateTenantSettings'; readonly data: { readonly at: string } };

export const settingsKind = singletonKind<TenantSettingsEvent, KindCommand<Never, ReplaceSettings>>({
  path: 'settings',
  name: SETTINGS_KIND.name,
  decider: tenantSettings,
  initial: (tenantId, id, at) => initialSettings(tenantId, id, at),
  // The sealed secret stays in the store: the answer says whether one is set.
  render: async (envelope) => {
    const { callback_secret: secret, ...data } = envelope.data;
    return { ...envelope, data: { ...data, callback_secret_set: secret !== null && secret !== undefined } };
  },
});

/** Members of the settings refused, each named (`(body)`: the settings are no JSON object): 400, values not echoed. */
export type SettingsRefused = { readonly _tag: 'SettingsRefused'; readonly problems: readonly SettingProblem[] };

/** The settings given, as their members. */
export type GivenSettings = { readonly [member: string]: Json | undefined };

const refused = (problems: readonly SettingProblem[]): SettingsRefused => ({ _tag: 'SettingsRefused', problems });

/**
 * The settings `body` gives, each member checked as the variable it overrides. A tenant, unlike
 * the operator, does not choose where the connector may reach: an address its callback URL names
 * must be public, as for every URL others choose (src/egress/).
 */
export const checkSettings = (
  body: unknown,
  config: Pick<Config, 'presentationExpiresInMin' | 'presentationExpiresInMax' | 'egressAllowPrivateNetworks'>,
): Either<SettingsRefused, GivenSettings> => {
  const read = readSettings(body, config);
  if (isLeft(read)) return left(refused(read.left));
  const url = read.right.callback_url;
  const reachable = typeof url === 'string' ? checkUrl(url, { allowPrivateNetworks: config.egressAllowPrivateNetworks }) : undefined;
  if (reachable && isLeft(reachable)) return left(refused([{ member: 'callback_url', message: `${reachable.left.detail} (EGRESS_ALLOW_PRIVATE_NETWORKS)` }]));
  return right(read.right);
};

/** The operation replacing the settings with `given`: the secret sealed, or the one set kept. */
export const replaceSettings = (kek: Buffer, tenantId: string, given: GivenSettings, current: ResourceData): Either<SettingsRefused, SingletonChange> => {
  const { callback_secret: secret, ...members } = given;
  const url = members['callback_url'];
  if (secret !== undefined && url === undefined) return left(refused([{ member: 'callback_secret', message: 'given without callback_url' }]));
  const kept = Sealed.is(current['callback_secret']) ? current['callback_secret'] : undefined;
  const sealed = typeof secret === 'string' ? sealCallbackSecret(kek, tenantId, secret) : url !== undefined ? kept : undefined;
  if (url !== undefined && sealed === undefined) return left(refused([{ member: 'callback_secret', message: 'required with callback_url (none is set yet)' }]));
  // The operator's approval of a callback URL holds for that URL only (src/tenantIdentity/settings.ts).
  const approved = url !== undefined && url === current['callback_url'] && current[CALLBACK_URL_CHOSEN_BY] === 'operator';
  const settings = { ...(members as ResourceData), callback_secret: (sealed as unknown as Json) ?? null, ...(approved ? { [CALLBACK_URL_CHOSEN_BY]: 'operator' } : {}) };
  return right({ type: 'ReplaceSettings', data: { settings } });
};
