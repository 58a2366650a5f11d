// The OpenAPI fragments of the tenant's singleton resources (src/resources/singletons.ts):
// `/settings` and `/verifier`, each with latest, PUT (If-Match), history and revisions.
import { CALLBACK_URL_CHOSEN_BY, SETTINGS_MEMBERS } from '../../streams/tenantSettings.js';
import { arrayOf, json, jsonBody, nullable, object, ref, string } from '../http/openapi/components.js';
import type { Operation, Paths, Schema } from '../http/openapi/types.js';
import { envelope } from './openapiSchemas.js';
import { answerHeaders, bodyProblems, conditional, conditionalRead, conditionalWrite, notModified, ok, problems, resourceOperation } from './openapiOperations.js';

interface SingletonDocument {
  readonly path: string;
  /** The envelope's component (`Settings`); operation ids are made from it. */
  readonly schema: string;
  readonly one: string;
  readonly put: { readonly summary: string; readonly description: string; readonly body: string };
}

export const SINGLETON_TAG = 'resources: tenant singletons';

const singletonPaths = (s: SingletonDocument): Paths => {
  const base = `/${s.path}`;
  const body = json(ref.schema(s.schema));
  const tags = [SINGLETON_TAG];
  const read = (operationId: string, summary: string, description: string, answer: ReturnType<typeof json>, parameters: Operation['parameters'] = []): Operation =>
    resourceOperation({
      operationId,
      summary,
      description,
      tags,
      scope: 'admin',
      parameters: [...(parameters ?? []), ...conditional],
      responses: { '200': ok(description, answer, answerHeaders.etag), '304': notModified, ...problems(...conditionalRead) },
    });
  return {
    [base]: {
      get: read(`get${s.schema}`, `The tenant's ${s.one}, latest revision`, `The latest revision (revision 1, nothing set, from the tenant's creation).`, body),
      put: resourceOperation({
        operationId: `put${s.schema}`,
        summary: s.put.summary,
        description: s.put.description,
        tags,
        scope: 'admin',
        parameters: conditionalWrite,
        requestBody: jsonBody(ref.schema(s.put.body)),
        responses: {
          '200': ok('The new revision.', body),
          ...problems(400, 403, [409, 'A request with the same Idempotency-Key is still running.'], [422, 'This Idempotency-Key was used for another request.'], 412, 428, ...bodyProblems),
        },
      }),
    },
    [`${base}/history`]: {
      get: read(`get${s.schema}History`, `Every revision of the tenant's ${s.one}, oldest first`, 'Every revision; `ETag` of the latest.', json(object({ items: arrayOf(ref.schema(s.schema), { minItems: 1 }) }))),
    },
    [`${base}/revisions/{revision}`]: {
      parameters: [ref.parameter('Revision')],
      get: read(`get${s.schema}Revision`, `One revision of the tenant's ${s.one}`, 'That revision.', body),
    },
  };
};

const SETTINGS: SingletonDocument = {
  path: 'settings',
  schema: 'Settings',
  one: 'settings',
  put: {
    summary: "Replace the tenant's settings",
    description:
      'Every member is named after the environment variable it overrides, in lower case, and takes what that variable takes (a number or boolean also as JSON); absent or null: not set, the deployment\'s value applies. An unknown member or a bad value is 400 naming it. `callback_secret` is write-only: without it the secret set stays while `callback_url` does (docs/tenant-settings.md).',
    body: 'SettingsChange',
  },
};

const VERIFIER: SingletonDocument = {
  path: 'verifier',
  schema: 'Verifier',
  one: 'registration as a relying party',
  put: {
    summary: "Set the tenant's registration certificate",
    description:
      'An ETSI TS 119 475 registration certificate (JWT, `typ` `rc-wrp+jwt`): refused (400, naming the rule) unless it verifies with the key of its `x5c` leaf, `iat` is present and `exp` not passed, the leaf is valid now and `credentials` is well formed. Its chain is not checked against a registrar\'s anchors.',
    body: 'VerifierChange',
  },
};

const settingValue: Schema = { type: ['string', 'integer', 'boolean', 'array', 'null'], items: { type: 'string' } };

const registeredCredential = object(
  { format: string(), meta: { type: 'object', description: '`vct_values` (dc+sd-jwt), `doctype_value` (mso_mdoc).' } },
  { claims: arrayOf(object({ path: arrayOf({ type: ['string', 'integer', 'null'] }, { minItems: 1 }) })) },
  'What the relying party may ask for, as a DCQL credential query (TS 119 475 `credentials`).',
);

export const singletonSchemas: Readonly<Record<string, Schema>> = {
  Settings: envelope(
    'settings',
    object(
      {
        ...Object.fromEntries(SETTINGS_MEMBERS.filter((m) => m !== 'callback_secret').map((m) => [m, { description: `Overrides ${m.toUpperCase()}; null: not set.` }])),
        callback_secret_set: { type: 'boolean', description: 'Whether a callback secret is set (it is never answered back).' },
      },
      {
        [CALLBACK_URL_CHOSEN_BY]: {
          enum: ['operator'],
          description: 'Present when the operator set `callback_url` (`ops callbacks set`): deliveries to it do not go through the egress guard. A URL the tenant sets must reach public addresses only, checked at every delivery.',
        },
      },
    ),
    "The tenant's settings: each member overrides the environment variable of its name.",
  ),
  SettingsChange: { ...object({}, Object.fromEntries(SETTINGS_MEMBERS.map((m) => [m, settingValue]))), additionalProperties: false },
  Verifier: envelope(
    'verifier',
    object({
      registration_certificate: nullable(string('The registration certificate JWT as given.')),
      credentials: arrayOf(registeredCredential, { description: 'The certificate\'s `credentials`, as parsed.' }),
      enforce_registration: { type: 'boolean' },
    }),
    "The tenant's registration as a relying party.",
  ),
  VerifierChange: {
    ...object({
      registration_certificate: nullable(string('An ETSI TS 119 475 registration certificate JWT; null: none.')),
      enforce_registration: { type: 'boolean', description: 'Refuse presentation requests asking for what the certificate does not register (needs a certificate).' },
    }),
    additionalProperties: false,
  },
};

export const singletonOpenApiPaths = (): Paths => ({ ...singletonPaths(SETTINGS), ...singletonPaths(VERIFIER) });
