// The OpenAPI fragments of the `signing-keys` kind (src/resources/signingKeys.ts): its own routes
// (create, list, certificate, activate) and shapes; the shared ones come with the kind (KINDS).
import { arrayOf, dateTime, json, jsonBody, nullable, object, ref, string, stringMap, uuid } from '../http/openapi/components.js';
import type { Paths, Schema } from '../http/openapi/types.js';
import { envelope } from './openapiSchemas.js';
import { bodyProblems, changeProblems, conditionalWrite, create, created, createProblems, idParameter, kind, ok, problems, resourceOperation, tagOf } from './openapiOperations.js';

const ROLE = { enum: ['access', 'issuer'], description: '`access`: signs request objects (the verifier); `issuer`: signs credentials and status lists.' };
const STATE = {
  enum: ['pending', 'ready', 'active', 'retired', 'destroyed'],
  description: '`pending`: no certificate yet; `ready`: certified, not active; `active`: the tenant\'s key of its role; `retired`: replaced by another, never signs again; `destroyed`: its material destroyed with the tenant\'s data.',
};

export const signingKeySchemas: Readonly<Record<string, Schema>> = {
  SigningKeyData: object({
    role: ROLE,
    state: STATE,
    public_jwk: object({ kty: { const: 'EC' }, crv: { const: 'P-256' }, x: string(), y: string() }, {}, 'The key\'s public half.'),
    csr: string('PKCS#10 certification request (PEM) signed by the key, with the subject and subjectAltNames of its role: for `issuer` the tenant\'s credential issuer identifier (URI) and its host (DNS); for `access` the host of PUBLIC_URL.'),
    key_store: { enum: ['file', 'pkcs11'], description: 'Where the key is: sealed in the event store (file), or in the PKCS#11 token.' },
    token_label: nullable(string('The key\'s label in the token (pkcs11).')),
    certificate_chain: nullable(string('PEM, leaf first.')),
    not_before: nullable(dateTime('The leaf\'s notBefore.')),
    not_after: nullable(dateTime('The leaf\'s notAfter.')),
    activated_at: nullable(dateTime()),
    retired_at: nullable(dateTime()),
    replaced_by: nullable(uuid('The key activated in its place.')),
  }),
  SigningKey: envelope('signing-key', ref.schema('SigningKeyData'), 'A tenant\'s signing key; the private key never appears.'),
  CreateSigningKey: object(
    { role: ROLE },
    {
      development_chain: { type: 'boolean', description: 'Certify the key at once by the deployment\'s development CA (state `ready`); 403 where ALLOW_DEVELOPMENT_CHAINS=false.' },
      annotations: stringMap('Annotations.'),
      labels: stringMap('Labels.'),
    },
  ),
  SigningKeyCertificate: object({ chain: string('PEM certificates, leaf first: the leaf must hold the key, be valid now and, for `issuer`, name the tenant\'s credential issuer in a subjectAltName.') }),
};

export const signingKeyPaths = (): Paths => {
  const keys = kind('signing-keys');
  const tags = [tagOf(keys.path)];
  return {
    '/signing-keys': {
      post: create(keys, {
        summary: 'Make a signing key',
        description: 'An EC P-256 key in the deployment\'s key store (file: sealed in the event store; pkcs11: made in the token, sensitive, not extractable), with a CSR for its role.',
        requestBody: jsonBody(ref.schema('CreateSigningKey')),
        responses: { '201': created('SigningKey', 'Made; `pending`, or `ready` with a development chain.'), ...problems(...createProblems, [403, 'The key lacks scope `admin`, or `development_chain` where ALLOW_DEVELOPMENT_CHAINS=false.']) },
      }),
      get: resourceOperation({
        operationId: 'listSigningKeys',
        summary: 'The tenant\'s signing keys, oldest first',
        tags,
        scope: keys.scope,
        responses: { '200': ok('Every key, latest revision.', json(object({ items: arrayOf(ref.schema('SigningKey')) })), {}), ...problems(400, 403) },
      }),
    },
    '/signing-keys/{id}/certificate': {
      parameters: idParameter,
      put: resourceOperation({
        operationId: 'certifySigningKey',
        summary: 'Give the key its certificate chain',
        description: 'Refused with 400 naming the rule (`leaf_key`, `chain`, `not_yet_valid`, `expired`, `issuer_name`) unless the leaf holds the key, each certificate is signed by the next, the leaf is valid now and, for `issuer`, names the tenant\'s credential issuer. A pending key becomes `ready`; an active one keeps signing, with the new chain.',
        tags,
        scope: keys.scope,
        parameters: conditionalWrite,
        requestBody: jsonBody(ref.schema('SigningKeyCertificate')),
        responses: { '200': ok('The new revision.', json(ref.schema('SigningKey'))), ...problems(...changeProblems, ...bodyProblems) },
      }),
    },
    '/signing-keys/{id}/activate': {
      parameters: idParameter,
      post: resourceOperation({
        operationId: 'activateSigningKey',
        summary: 'Make the key the tenant\'s active key of its role',
        description: 'The key must be `ready`: a `pending`, `active` or `retired` key is 409, saying why. The active key it replaces becomes `retired` (a revision of its own).',
        tags,
        scope: keys.scope,
        parameters: conditionalWrite,
        responses: { '200': ok('The new revision.', json(ref.schema('SigningKey'))), ...problems(...changeProblems) },
      }),
    },
  };
};
