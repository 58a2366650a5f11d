// The OpenAPI 3.1 document of both listeners, assembled from each feature's fragment (its
// `openapi.ts`, next to the routes it describes) and the listeners' own (./openapi.ts). It is
// served at GET /openapi.json on the management listener; tests check it against the routers and
// the answers the end-to-end tests receive (test/openapi.test.ts, test/support/openapi.ts).
//
// To describe a new route: add it to its feature's `management` or `public` paths (a new area is
// listed below), naming its schemas in the area's `schemas`.
import Router from '@koa/router';
import type { Config } from '../config/config.js';
import { headers, mergePaths, parameters, problemResponses, securitySchemes, sharedSchemas } from '../http/openapi/components.js';
import { authorizationCodeArea } from '../issuance/openapiAuthorizationCode.js';
import { consoleArea } from '../console/openapi.js';
import { issuanceArea } from '../issuance/openapi.js';
import { listenersArea } from './openapi.js';
import { resourcesArea } from '../resources/openapi.js';
import { statusArea } from '../issuance/status/openapi.js';
import { tenantIssuerArea } from '../issuance/openapiTenantIssuer.js';
import { tenancyArea } from '../tenancy/openapi.js';
import type { Area, PathItem, Schema, Server } from '../http/openapi/types.js';
import { verificationArea } from '../verification/openapi.js';

const OPENAPI_PATH = '/openapi.json';

/** The version of this service (package.json's, checked by a test). */
export const SERVICE_VERSION = '0.1.0';

/** Relative: the management listener is wherever this document was fetched from. */
export const MANAGEMENT_SERVER: Server = { url: '/', description: 'The management listener (MANAGEMENT_PORT, internal), where this document is served.' };

const publicServer = (publicUrl: string): Server => ({ url: publicUrl, description: 'The public listener as wallets reach it (PUBLIC_URL).' });

export type DocumentConfig = Pick<Config, 'publicUrl' | 'presentationExpiresIn' | 'presentationExpiresInMin' | 'presentationExpiresInMax'>;

const DESCRIPTION = `The EUDI wallet connector: OpenID4VP verification and OpenID4VCI issuance (connector API, spec v1.3.0) and the platform resource API (0.40.11).

**Two listeners.** Operations without their own \`servers\` are on the management listener (internal; every route but the health routes, \`/metrics\` and this document needs an API key, checked before routing, so an unauthenticated request is 401 whatever the path). Operations naming the public listener's server are what wallets and uploaders reach at PUBLIC_URL.

**Errors.** The management API, and the public listener's non-wallet routes, answer \`application/problem+json\` (\`Problem\`). Wallet-facing routes answer OAuth-style \`{error, error_description}\`. On both listeners a path no operation has is 404, and a method a path does not have is 405 with \`Allow\`, both as problems; \`OPTIONS\` on a path is 200 with \`Allow\` and no body.

**Headers.** Every answer carries \`X-Request-Id\`. Resource API answers carry \`RateLimit\` and \`RateLimit-Policy\` (a 429 also \`Retry-After\`); resource API writes take \`Idempotency-Key\`, conditional ones \`If-Match\`, reads \`If-None-Match\`.

**Callbacks** (Presented Credentials Events and Issuance Events) are POSTed to the integrator's URL with Standard Webhooks signatures; see the README.`;

const mergeSchemas = (areas: readonly Area[]): Record<string, Schema> => {
  const schemas: Record<string, Schema> = { ...sharedSchemas };
  for (const area of areas) {
    for (const [name, schema] of Object.entries(area.schemas ?? {})) {
      if (name in schemas) throw new Error(`schema ${name} is defined twice`);
      schemas[name] = schema;
    }
  }
  return schemas;
};

/** Both listeners' paths in one map: a public path names the public server, a path on both listeners names both. */
const listenerPaths = (areas: readonly Area[], publicUrl: string): Record<string, PathItem> => {
  const management = mergePaths(...areas.map((a) => a.management ?? {}));
  const wallet = mergePaths(...areas.map((a) => a.public ?? {}));
  const paths: Record<string, PathItem> = { ...management };
  for (const [template, item] of Object.entries(wallet)) {
    const shared = management[template];
    if (shared !== undefined && JSON.stringify(shared) !== JSON.stringify(item)) {
      throw new Error(`${template} is on both listeners with different operations: one document cannot say so`);
    }
    paths[template] = { servers: shared === undefined ? [publicServer(publicUrl)] : [MANAGEMENT_SERVER, publicServer(publicUrl)], ...item };
  }
  return paths;
};

export const openApiDocument = (config: DocumentConfig) => {
  const areas: readonly Area[] = [listenersArea, tenancyArea, verificationArea(config), issuanceArea, authorizationCodeArea, statusArea, tenantIssuerArea, resourcesArea, consoleArea];
  return {
    openapi: '3.1.1',
    info: { title: 'EUDI wallet connector', version: SERVICE_VERSION, description: DESCRIPTION },
    servers: [MANAGEMENT_SERVER],
    tags: areas.flatMap((a) => a.tags),
    paths: listenerPaths(areas, config.publicUrl),
    components: { schemas: mergeSchemas(areas), responses: problemResponses(), parameters, headers, securitySchemes },
  };
};

export type OpenApiDocument = ReturnType<typeof openApiDocument>;

/** GET /openapi.json; the document is built once, at start. */
export const openApiRouter = (document: OpenApiDocument): Router => {
  const body = JSON.stringify(document);
  const router = new Router();
  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  return router;
};
