// The `credential-configurations` kind (issue 38): the credential configurations a tenant issues,
// each a versioned resource whose `data` is one configuration in the shape of an entry of the
// CREDENTIAL_CONFIGURATIONS file, checked by the same rules (src/issuance/configurations.ts), every
// refusal naming its field. The issuer reads them through TenantConfigurations
// (src/issuance/tenantConfigurations.ts).
//
// `{id}` in the path is the resource id, as for every kind: a UUID, derived from the tenant and the
// configuration's own `id` (streams/credentialConfiguration.ts). So the configuration's `id` is
// unique in the tenant by construction (another tenant's `pid` is another resource), a second
// `POST` of an id the tenant has is 409 (live: PUT it; deleted: restore it, which keeps one history
// per id), and a `PUT` cannot change the configuration's `id`.
import Router from '@koa/router';
import type { Context } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { findLatest, findLiveCredentialConfigurations } from '../../projections/resources.js';
import {
  CREDENTIAL_CONFIGURATION_KIND,
  configurationResourceId,
  credentialConfiguration,
  credentialConfigurationStream,
  type CreateCredentialConfiguration,
  type ReplaceCredentialConfiguration,
  type CredentialConfigurationEvent,
} from '../../streams/credentialConfiguration.js';
import { StringMap, type KindCommand, type ResourceData } from '../../streams/resource.js';
import { checkCredentialConfiguration, type ConfigurationProblem, type CredentialConfiguration } from '../issuance/configurations.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { conflict, HttpError, invalidValues, type FieldError } from '../http/problem.js';
import { decode } from '../http/validate.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { recordNamedCreation } from './create.js';
import { wireEnvelope } from './envelope.js';
import type { VersionedKind } from './kind.js';
import { addressOf, answerCreated, metadataOf, rendered, updateRoute, versionedRoutes } from './routes.js';
import { problemOf } from './problems.js';
import { ENVELOPE_ONLY } from './search.js';

export const credentialConfigurationsKind: VersionedKind<
  CredentialConfigurationEvent,
  KindCommand<CreateCredentialConfiguration, ReplaceCredentialConfiguration>
> = {
  path: 'credential-configurations',
  name: CREDENTIAL_CONFIGURATION_KIND.name,
  scope: 'admin',
  decider: credentialConfiguration,
  streamOf: credentialConfigurationStream,
  search: ENVELOPE_ONLY,
};

/** `POST /credential-configurations`: the configuration in `data`. */
const CreateBody = t.intersection([t.type({ data: t.unknown }), t.partial({ annotations: StringMap, labels: StringMap })]);
/** `PUT /credential-configurations/{id}`: the whole configuration in `data`, the same `id`. */
const ReplaceBody = t.type({ data: t.unknown });

const DATA = 'body.data';

const fieldErrorOf = (problem: ConfigurationProblem): FieldError => ({
  location: problem.location === '' ? DATA : problem.location.startsWith('[') ? `${DATA}${problem.location}` : `${DATA}.${problem.location}`,
  message: problem.message,
  value: undefined,
});

/** The configuration of a request's `data`, or a 400 naming every field refused. */
const configurationOf = (data: unknown): CredentialConfiguration => {
  const checked = checkCredentialConfiguration(data);
  if (isLeft(checked)) throw new HttpError(invalidValues(checked.left.map(fieldErrorOf)));
  return checked.right;
};

const asData = (configuration: CredentialConfiguration): ResourceData => configuration as unknown as ResourceData;

const exists = (deleted: boolean, id: string): HttpError =>
  new HttpError(
    conflict(
      deleted
        ? `The tenant's credential configuration "${id}" is deleted; restore it (POST /credential-configurations/{id}/restore) to use the id again.`
        : `The tenant has a credential configuration "${id}"; change it with PUT /credential-configurations/{id}.`,
    ),
  );

export const credentialConfigurationRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = credentialConfigurationsKind;
  const scope = requireScope(kind.scope);

  router.post(`/${kind.path}`, scope, async (ctx) => {
    const request = await readJson(ctx, { limitBytes: JSON_LIMIT });
    const body = decode(CreateBody, request, 'body');
    const configuration = configurationOf(body.data);
    const tenantId = principalOf(ctx).tenantId;
    const resourceId = configurationResourceId(tenantId, configuration.id);
    await deps.idempotent(ctx, request as Json, async () => {
      const held = findLatest(deps.runner.db, { tenantId, kind: kind.name, id: resourceId });
      if (held) throw exists(held.deletedAt !== null, configuration.id);
      const create: CreateCredentialConfiguration = {
        type: 'CreateCredentialConfiguration',
        data: { resourceId, tenantId, configuration: asData(configuration), annotations: body.annotations ?? {}, labels: body.labels ?? {}, at: deps.now().toISOString() },
      };
      const created = await recordNamedCreation(deps.store, kind, resourceId, create, metadataOf(ctx));
      // A creation racing this one won (the read model had not shown it yet).
      if (isLeft(created)) throw exists(false, configuration.id);
      return answerCreated(deps, kind, ctx, created.right);
    });
  });

  router.get(`/${kind.path}`, scope, async (ctx) => {
    const live = findLiveCredentialConfigurations(deps.runner.db, principalOf(ctx).tenantId);
    ctx.body = { items: await Promise.all(live.map(async (envelope) => wireEnvelope(await rendered(kind, ctx, envelope)))) };
  });

  /** The replacing configuration; its `id` names this resource, so it cannot change. */
  const replacement = async (ctx: Context): Promise<{ readonly data: ResourceData }> => {
    const body = decode(ReplaceBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const configuration = configurationOf(body.data);
    const address = addressOf(ctx, kind);
    if (configurationResourceId(address.tenantId, configuration.id) !== address.id) {
      // Not the tenant's resource at all: 404, as the change itself would answer.
      if (!findLatest(deps.runner.db, address)) throw problemOf({ _tag: 'NotFound' });
      throw new HttpError(invalidValues([{ location: `${DATA}.id`, message: 'the id of a configuration cannot change (it names the resource)', value: configuration.id }]));
    }
    return { data: asData(configuration) };
  };
  router.put(
    `/${kind.path}/:id`,
    scope,
    updateRoute(kind, deps, replacement, async ({ data }) => ({ type: 'ReplaceCredentialConfiguration', data: { configuration: data } })),
  );

  versionedRoutes(router, kind, deps);
};
