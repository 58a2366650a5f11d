// Credential status, the issuer's side: the management routes that revoke, suspend and reinstate
// what was issued under an offer, and the public Status List Tokens verifiers fetch.
import { apiKey, header, json, jsonBody, managementAnswers, noAuthentication, object, operation, pathParameter, ref, string, arrayOf } from '../../http/openapi/components.js';
import type { Area } from '../../http/openapi/types.js';

const StatusBody = object({ status: { enum: ['revoked', 'suspended', 'valid'] } });

const StatusAnswer = object({
  status: { enum: ['revoked', 'suspended', 'valid'] },
  statusReferences: arrayOf(
    object({ uri: string('The Status List Token\'s address, under PUBLIC_URL.', { format: 'uri' }), idx: { type: 'integer', minimum: 0 } }),
    { description: 'The `status.status_list` entry of every credential issued under the offer.' },
  ),
});

const answered = (description: string) =>
  managementAnswers.answer(description, { content: json(ref.schema('CredentialStatus')), headers: { ETag: ref.header('ETag') } });

const offerId = pathParameter('offer_id', 'The `offer_id` of `POST /offers`.');

export const statusArea: Area = {
  tags: [{ name: 'credential status', description: 'Revoking and suspending issued credentials; the Status List Tokens verifiers read (draft-ietf-oauth-status-list).' }],
  schemas: { CredentialStatusChange: StatusBody, CredentialStatus: StatusAnswer },
  management: {
    '/offers/{offer_id}/credential-status': {
      parameters: [offerId],
      get: operation({
        operationId: 'getCredentialStatus',
        summary: 'The status of what was issued under an offer',
        tags: ['credential status'],
        security: apiKey('connector'),
        responses: {
          '200': answered('The status and the entries it is published at; `ETag` is the status stream\'s revision.'),
          ...managementAnswers.problems(401, 403, [404, 'No offer with this id in the caller\'s tenant.'], [409, 'Nothing with a status has been issued under the offer yet.'], 500),
        },
      }),
      put: operation({
        operationId: 'setCredentialStatus',
        summary: 'Revoke, suspend or reinstate what was issued under an offer',
        description: 'Revocation is final. Each change is delivered as a callback (`REVOKED`, `SUSPENDED`, `REINSTATED`) with an `eventId` of its own, and shows in the served Status List Token once this answers.',
        tags: ['credential status'],
        security: apiKey('connector'),
        parameters: [header('If-Match', 'Optional: the `ETag` of the status being changed; a stale one is 412.')],
        requestBody: jsonBody(ref.schema('CredentialStatusChange')),
        responses: {
          '200': answered('The status now, and the entries it is published at.'),
          ...managementAnswers.problems(
            400,
            401,
            403,
            [404, 'No offer with this id in the caller\'s tenant.'],
            [409, 'Nothing issued yet, or the credentials are revoked (revocation is final).'],
            [412, 'If-Match names another revision of the status; nothing was written.'],
            413,
            415,
            500,
          ),
        },
      }),
    },
  },
  public: {
    '/status-lists/{list_id}': {
      parameters: [pathParameter('list_id', 'The list number in the `uri` of a credential\'s `status.status_list`.')],
      get: operation({
        operationId: 'getStatusListToken',
        summary: 'A Status List Token',
        description:
          'Signed with the Issuer Signing Certificate, 2 bits per status, with `ttl` and `exp`, in the form `Accept` asks for (`Vary: Accept`): ' +
          'the JWT (`application/statuslist+jwt`, `typ: statuslist+jwt`, chain in `x5c`) by default, also for an `Accept` naming neither form or preferring the JWT; ' +
          'the CWT (`application/statuslist+cwt`: a COSE_Sign1 with `typ` (16) `application/statuslist+cwt` and ES256 protected, the chain in `x5chain`; ' +
          'claims `sub` 2, `iat` 6, `exp` 4, `ttl` 65534, `status_list` 65533 `{bits, lst}` with `lst` the compressed bytes) when `Accept` prefers it. ' +
          'Each form has its own `ETag`.',
        tags: ['credential status'],
        security: noAuthentication,
        parameters: [ref.parameter('IfNoneMatch')],
        responses: {
          '200': managementAnswers.answer('The token.', {
            content: {
              'application/statuslist+jwt': { schema: string('A compact JWS.', { pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' }) },
              'application/statuslist+cwt': { schema: string('A CWT: a tagged COSE_Sign1 (CBOR).', { contentMediaType: 'application/cbor' }) },
            },
            headers: { ETag: ref.header('ETag') },
          }),
          '304': managementAnswers.answer('If-None-Match names the current token: no body.', { headers: { ETag: ref.header('ETag') } }),
          ...managementAnswers.problems([404, 'No status list with this number.'], 500),
        },
      }),
    },
  },
};
