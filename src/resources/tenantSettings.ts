// `/settings`: the tenant's settings, a singleton resource (src/resources/singletons.ts). Each
// member is read as the variable it overrides (src/tenantIdentity/settings.ts); a PUT replaces the
// whole settings (an absent or null member: not set, the deployment's value applies). The callback
// secret is sealed before it is recorded and never answered back: `callback_secret_set` says
// whether there is one; a PUT without it keeps the one set, as long as `callback_url` stays.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { Sealed } from '../../streams/dataKey.js';
import type { KindCommand, ResourceData } from '../../streams/resource.js';
import { streamName } from '../../streams/kernel.js';
import { initialSettings, SETTINGS_KIND, tenantSettings, type ReplaceSettings, type TenantSettingsEvent } from '../../streams/tenantSettings.js';
import { checkUrl } from '../egress/egress.js';
import { readJson } from '../http/body.js';
import { HttpError, invalidRequest, type FieldError } from '../http/problem.js';
import { CALLBACK_URL_CHOSEN_BY, readSettings, sealCallbackSecret, type SettingProblem } from '../tenantIdentity/settings.js';
import type { Json } from '../eventstore/port.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { ENVELOPE_ONLY } from './search.js';
import { singletonRoutes, type SingletonKind } from './singletons.js';

type Never = { readonly type: 'CreateTenantSettings'; readonly data: { readonly at: string } };

export const settingsKind: SingletonKind<TenantSettingsEvent, KindCommand<Never, ReplaceSettings>> = {
  path: 'settings',
  name: SETTINGS_KIND.name,
  scope: 'admin',
  decider: tenantSettings,
  streamOf: (id) => streamName(tenantSettings.category, id),
  search: ENVELOPE_ONLY,
  initial: (tenantId, id, at) => initialSettings(tenantId, id, at),
  // The sealed secret stays in the store: the answer says whether one is set.
  render: async (envelope) => {
    const { callback_secret: secret, ...data } = envelope.data;
    return { ...envelope, data: { ...data, callback_secret_set: secret !== null && secret !== undefined } };
  },
};

const refusal = (problems: readonly SettingProblem[]): HttpError => {
  // Values are not echoed: the callback secret is one of them.
  const errors: FieldError[] = problems.map((p) => ({ location: p.member === '(body)' ? 'body' : `body.${p.member}`, message: p.message, value: undefined }));
  const detail = problems.length === 1 ? `${problems[0]!.member}: ${problems[0]!.message}` : problems.map((p) => p.member).join(', ');
  return new HttpError(invalidRequest(`Invalid settings: ${detail}.`, errors));
};

/** The settings data a PUT records: its members, the secret sealed or the one set kept. */
const settingsData = (kek: Buffer, tenantId: string, given: { readonly [member: string]: Json | undefined }, current: ResourceData): ResourceData => {
  const { callback_secret: secret, ...members } = given;
  const url = members['callback_url'];
  if (secret !== undefined && url === undefined) throw refusal([{ member: 'callback_secret', message: 'given without callback_url' }]);
  const kept = Sealed.is(current['callback_secret']) ? current['callback_secret'] : undefined;
  const sealed = typeof secret === 'string' ? sealCallbackSecret(kek, tenantId, secret) : url !== undefined ? kept : undefined;
  if (url !== undefined && sealed === undefined) throw refusal([{ member: 'callback_secret', message: 'required with callback_url (none is set yet)' }]);
  // The operator's approval of a callback URL holds for that URL only (src/tenantIdentity/settings.ts).
  const approved = url !== undefined && url === current['callback_url'] && current[CALLBACK_URL_CHOSEN_BY] === 'operator';
  return { ...(members as ResourceData), callback_secret: (sealed as unknown as Json) ?? null, ...(approved ? { [CALLBACK_URL_CHOSEN_BY]: 'operator' } : {}) };
};

export const settingsRoutes = (router: Router, deps: ResourcesContext, kek: Buffer): void => {
  singletonRoutes(
    router,
    settingsKind,
    deps,
    async (ctx) => {
      const read = readSettings(await readJson(ctx, { limitBytes: JSON_LIMIT }), deps.config);
      if (isLeft(read)) throw refusal(read.left);
      // A tenant, unlike the operator, does not choose where the connector may reach: an address
      // its callback URL names must be public, as for every URL others choose (src/egress/).
      const url = read.right.callback_url;
      const reachable = typeof url === 'string' ? checkUrl(url, { allowPrivateNetworks: deps.config.egressAllowPrivateNetworks }) : undefined;
      if (reachable && isLeft(reachable)) throw refusal([{ member: 'callback_url', message: `${reachable.left.detail} (EGRESS_ALLOW_PRIVATE_NETWORKS)` }]);
      return read.right as Json;
    },
    async (request, current, tenantId) => ({
      type: 'ReplaceSettings',
      data: { settings: settingsData(kek, tenantId, request as { readonly [member: string]: Json }, current) },
    }),
  );
};
