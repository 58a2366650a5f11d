// A tenant's own credential issuer (issue 38) on the public listener: the deployment's wallet
// routes (./openapi.ts, ./openapiAuthorizationCode.ts, ./status/openapi.ts) again under the
// tenant's credential issuer identifier `{PUBLIC_URL}/issuers/{tenant_id}`, each also answering
// 404 while the tenant has no issuer of its own; and its metadata at the well-known URLs with the
// path inserted (OpenID4VCI 1.0 section 12.2.2, RFC 8414 section 3.1).
import { METHODS, oauthError, pathParameter } from '../http/openapi/components.js';
import type { Area, Operation, PathItem, Paths } from '../http/openapi/types.js';
import { PATHS } from './context.js';
import { issuanceArea } from './openapi.js';
import { authorizationCodeArea } from './openapiAuthorizationCode.js';
import { statusArea } from './status/openapi.js';

/** The OpenAPI template of TENANT_ISSUER_PREFIX. */
const PREFIX = '/issuers/{tenant_id}';

const tenantParameter = pathParameter('tenant_id', 'The tenant whose own credential issuer this is: its identifier is `{PUBLIC_URL}/issuers/{tenant_id}`.');

const noIssuer = oauthError('No credential issuer here: the tenant has no active issuer key or no credential configuration (or no such tenant).', ['not_found']);

const atTenant = (operation: Operation, suffix: string): Operation => ({
  ...operation,
  operationId: `${operation.operationId}${suffix}`,
  description: `${operation.description ?? operation.summary}. At a tenant's own credential issuer: everything is its own (identifier, key, configurations); codes, tokens and nonces of another issuer are unknown here.`,
  // Where the deployment's route has a 404 of its own, that one describes this one too.
  responses: { '404': noIssuer, ...operation.responses },
});

const tenantItem = (item: PathItem, suffix: string): PathItem => {
  const { servers: _servers, parameters, ...operations } = item;
  const tenantOperations = Object.fromEntries(
    METHODS.flatMap((method) => {
      const operation = operations[method];
      return operation === undefined ? [] : [[method, atTenant(operation, suffix)]];
    }),
  );
  return { parameters: [tenantParameter, ...(parameters ?? [])], ...tenantOperations };
};

const underTenant = (paths: Paths): Paths => Object.fromEntries(Object.entries(paths).map(([template, item]) => [`${PREFIX}${template}`, tenantItem(item, 'AtTenantIssuer')]));

const deploymentPaths: Paths = { ...issuanceArea.public, ...authorizationCodeArea.public, ...statusArea.public };

export const tenantIssuerArea: Area = {
  tags: [],
  public: {
    ...underTenant(deploymentPaths),
    [`${PATHS.issuerMetadata}${PREFIX}`]: tenantItem(deploymentPaths[PATHS.issuerMetadata]!, 'PathInserted'),
    [`${PATHS.authorizationServerMetadata}${PREFIX}`]: tenantItem(deploymentPaths[PATHS.authorizationServerMetadata]!, 'PathInserted'),
  },
};
