// The `credential-configurations` kind's own routes and shapes (the shared ones come from
// versionedPaths): create, list the live ones, replace under If-Match. `data` is a configuration
// in the shape of an entry of the CREDENTIAL_CONFIGURATIONS file (src/issuance/configurations.ts).
import { arrayOf, json, jsonBody, object, ref, string, stringMap } from '../http/openapi/components.js';
import type { Paths, Schema } from '../http/openapi/types.js';
import { bodyProblems, changeProblems, conditionalWrite, create, created, createProblems, idParameter, kind, ok, problems, resourceOperation, tagOf } from './openapiOperations.js';
import { envelope } from './openapiSchemas.js';

const ID_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
const Display = object({ lang: string(), name: string() }, { description: string() });
const displays = (what: string): Schema => arrayOf(Display, { description: what });
const SdJwtVcClaim = object(
  {
    path: arrayOf(string(undefined, { minLength: 1 }), { minItems: 1, description: 'Claim path; its first name may not be one the connector sets (`iss`, `sub`, `vct`, `cnf`, `status`, ...), and no name may be `_sd`, `_sd_alg` or `...`.' }),
    mandatory: { type: 'boolean' },
    sd: { enum: ['always', 'never', 'allowed'] },
    display: displays('Labels of the claim.'),
  },
  { value_type: { enum: ['string', 'number', 'integer', 'boolean', 'date', 'object', 'array'] } },
);
const MdocClaim = object(
  {
    path: arrayOf(string(undefined, { minLength: 1 }), { minItems: 2, maxItems: 2, description: '`[namespace, element identifier]`.' }),
    mandatory: { type: 'boolean' },
    display: displays('Labels of the element.'),
  },
  { value_type: { enum: ['string', 'number', 'integer', 'boolean', 'full-date', 'tdate', 'bytes', 'object', 'array', 'driving_privileges'] } },
);
const configurationId = string('Unique among the tenant\'s configurations; names the resource (cannot change).', { pattern: ID_PATTERN });

export const credentialConfigurationSchemas: Readonly<Record<string, Schema>> = {
  CredentialConfigurationData: {
    anyOf: [
      object(
        { id: configurationId, vct: string('A URI.'), display: displays('At least one.'), claims: arrayOf(SdJwtVcClaim, { description: 'At least one; no two the same or nested.' }) },
        {
          format: { const: 'dc+sd-jwt' },
          status_list: { type: 'boolean', description: '`false`: no Status List entry (cannot be revoked or suspended).' },
          sub_jwk_thumbprint: { type: 'boolean', description: '`false`: no `sub`.' },
        },
        'An SD-JWT VC configuration (`format` absent or `dc+sd-jwt`).',
      ),
      object(
        { id: configurationId, format: { const: 'mso_mdoc' }, doctype: string(undefined, { minLength: 1 }), display: displays('At least one.'), claims: arrayOf(MdocClaim, { description: 'At least one; no two the same path.' }) },
        { scope: string('The OAuth scope naming it; default its id.'), status_list: { type: 'boolean' } },
        'An ISO mdoc configuration.',
      ),
    ],
    description: 'One credential configuration, as an entry of the `CREDENTIAL_CONFIGURATIONS` file; every refusal names its field (`body.data.claims[0].path`).',
  },
  CredentialConfiguration: envelope('credential-configuration', ref.schema('CredentialConfigurationData'), 'A credential configuration the tenant issues; `id` derives from the tenant and `data.id`.'),
  CreateCredentialConfiguration: object({ data: ref.schema('CredentialConfigurationData') }, { annotations: stringMap('Annotations.'), labels: stringMap('Labels.') }),
  ReplaceCredentialConfiguration: object({ data: ref.schema('CredentialConfigurationData') }, {}, 'The whole configuration; its `id` must be the one it has.'),
};

export const credentialConfigurationPaths = (): Paths => {
  const configurations = kind('credential-configurations');
  const tags = [tagOf(configurations.path)];
  return {
    '/credential-configurations': {
      post: create(configurations, {
        summary: 'Create a credential configuration',
        description: 'Checked as the `CREDENTIAL_CONFIGURATIONS` file is; the tenant\'s issuer offers it from then on.',
        requestBody: jsonBody(ref.schema('CreateCredentialConfiguration')),
        responses: {
          '201': created('CredentialConfiguration', 'Created.'),
          ...problems(...createProblems, [409, 'The tenant has a configuration with this `id` (live: replace it; deleted: restore it), or the Idempotency-Key is in use.']),
        },
      }),
      get: resourceOperation({
        operationId: 'listCredentialConfigurations',
        summary: 'The live credential configurations',
        description: 'Each at its latest revision, oldest first; deleted ones are found by id or search.',
        tags,
        scope: configurations.scope,
        responses: { '200': ok('The tenant\'s live configurations.', json(object({ items: arrayOf(ref.schema('CredentialConfiguration')) })), {}), ...problems(400, 403) },
      }),
    },
    '/credential-configurations/{id}': {
      parameters: idParameter,
      put: resourceOperation({
        operationId: 'replaceCredentialConfiguration',
        summary: 'Replace a credential configuration',
        description: 'A new revision holding the configuration given, whole; new offers use it, offers made before keep the revision they were made with.',
        tags,
        scope: configurations.scope,
        parameters: conditionalWrite,
        requestBody: jsonBody(ref.schema('ReplaceCredentialConfiguration')),
        responses: { '200': ok('The new revision.', json(ref.schema('CredentialConfiguration'))), ...problems(...changeProblems, ...bodyProblems) },
      }),
    },
  };
};
