// The routes of the `credential-configurations` kind (issue 38; credentialConfigurationsKind.ts):
// the credential configurations a tenant issues, each a versioned resource whose `data` is one
// configuration in the shape of an entry of the CREDENTIAL_CONFIGURATIONS file, created
// (createCredentialConfiguration.ts) and replaced (replaceCredentialConfiguration.ts) by the same
// rules (src/issuance/configurations.ts). The issuer reads them through TenantConfigurations
// (src/issuance/tenantConfigurations.ts).
//
// `{id}` in the path is the resource id, as for every kind: a UUID, derived from the tenant and the
// configuration's own `id` (streams/credentialConfiguration.ts). So a second `POST` of an id the
// tenant has is 409 (live: PUT it; deleted: restore it), and a `PUT` cannot change the
// configuration's `id`. The configuration rules are checked before the Idempotency-Key is claimed.
import Router from '@koa/router';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findLiveCredentialConfigurations } from '../../projections/resources.js';
import { StringMap } from '../../streams/resource.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { checkConfiguration, createCredentialConfiguration } from './createCredentialConfiguration.js';
import { credentialConfigurationsKind } from './credentialConfigurationsKind.js';
import { wireEnvelope } from './envelope.js';
import { problemOf } from './problems.js';
import { replaceCredentialConfiguration } from './replaceCredentialConfiguration.js';
import { addressOf, answerCreated, metadataOf, rendered, updateRoute, versionedRoutes } from './routes.js';

/** `POST /credential-configurations`: the configuration in `data`. */
const CreateBody = t.intersection([t.type({ data: t.unknown }), t.partial({ annotations: StringMap, labels: StringMap })]);
/** `PUT /credential-configurations/{id}`: the whole configuration in `data`, the same `id`. */
const ReplaceBody = t.type({ data: t.unknown });

export const credentialConfigurationRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = credentialConfigurationsKind;
  const scope = requireScope(kind.scope);

  router.post(`/${kind.path}`, scope, async (ctx) => {
    const request = await readJson(ctx, { limitBytes: JSON_LIMIT });
    const body = decode(CreateBody, request, 'body');
    const configuration = checkConfiguration(body.data);
    if (isLeft(configuration)) throw problemOf(configuration.left);
    const tenantId = principalOf(ctx).tenantId;
    await deps.idempotent(ctx, request as Json, async () => {
      const create = { tenantId, configuration: configuration.right, annotations: body.annotations ?? {}, labels: body.labels ?? {}, at: deps.now().toISOString() };
      const created = await createCredentialConfiguration({ store: deps.store, db: deps.runner.db }, create, metadataOf(ctx));
      if (isLeft(created)) throw problemOf(created.left);
      return answerCreated(deps, kind, ctx, created.right);
    });
  });

  router.get(`/${kind.path}`, scope, async (ctx) => {
    const live = findLiveCredentialConfigurations(deps.runner.db, principalOf(ctx).tenantId);
    ctx.body = { items: await Promise.all(live.map(async (envelope) => wireEnvelope(await rendered(kind, ctx, envelope)))) };
  });

  router.put(
    `/${kind.path}/:id`,
    scope,
    updateRoute(
      kind,
      deps,
      // What Idempotency-Key compares: the checked configuration.
      async (ctx) => {
        const body = decode(ReplaceBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
        const replacement = replaceCredentialConfiguration(deps.runner.db, addressOf(ctx, kind), body.data);
        if (isLeft(replacement)) throw problemOf(replacement.left);
        return { data: replacement.right.data.configuration };
      },
      async ({ data }) => ({ type: 'ReplaceCredentialConfiguration', data: { configuration: data } }),
    ),
  );

  versionedRoutes(router, kind, deps);
};
