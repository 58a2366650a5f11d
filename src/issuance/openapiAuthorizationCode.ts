// OpenAPI of the authorization code flow's own routes: the pushed authorization request and the
// authorization endpoint (public listener), and the integrator's authorization routes
// (management listener). The token and credential endpoints are described with the rest of issuance.
import {
  apiKey,
  arrayOf,
  dateTime,
  header,
  json,
  jsonBody,
  managementAnswers,
  noAuthentication,
  nullable,
  oauthError,
  object,
  operation,
  pathParameter,
  queryParameter,
  ref,
  string,
  uuid,
} from '../http/openapi/components.js';
import type { Area, Operation } from '../http/openapi/types.js';
import { PATHS } from './context.js';
import { REQUEST_URI_TTL_SECONDS } from './pushedAuthorization/pushAuthorizationRequest.js';

const walletOperation = (op: Omit<Operation, 'tags' | 'security'>): Operation => operation({ tags: ['wallet: issuance'], security: noAuthentication, ...op });
const authorizationId = pathParameter('authorization_id', 'The `authorization_id` the authentication page was opened with.');

export const authorizationCodeArea: Area = {
  tags: [{ name: 'issuance: authorization', description: 'The integrator\'s side of the authorization code flow: what the wallet asks for, and the user\'s authentication result.' }],
  schemas: {
    PushedAuthorizationResponse: object({
      request_uri: string('`urn:ietf:params:oauth:request_uri:...`: single use.', { pattern: '^urn:ietf:params:oauth:request_uri:' }),
      expires_in: { const: REQUEST_URI_TTL_SECONDS },
    }),
    Authorization: object({
      authorization_id: string(),
      offer_id: uuid(),
      status: { enum: ['pending', 'completed', 'denied'] },
      credential_configuration_ids: arrayOf(string(), { minItems: 1 }),
      claims_required: { type: 'boolean', description: 'The offer has no claims: complete it with `claims`.' },
      client_id: string('The wallet\'s client id (its attestation\'s `sub`).'),
      wallet_name: nullable(string('`wallet_name` of the wallet attestation.')),
      wallet_provider: string('`iss` of the wallet attestation.'),
      expires_at: dateTime('Complete before this (AUTHORIZATION_TTL_SECONDS after the wallet came).'),
    }),
    CompleteAuthorization: object(
      {},
      {
        claims: { type: 'object', description: 'The claims, checked like `POST /offers`\'s: required when the offer has none, refused when it has others.' },
        error: { const: 'access_denied', description: 'Instead of claims: the user did not authenticate or may not have the credential. The offer is FAILED.' },
        error_description: string(undefined, { maxLength: 300 }),
      },
    ),
    AuthorizationResult: object({ redirect_to: string('Send the browser here: the wallet\'s redirect_uri with `code`, `state` and `iss` (or `error`).', { format: 'uri' }) }),
  },
  management: {
    '/authorizations/{authorization_id}': {
      parameters: [authorizationId],
      get: operation({
        operationId: 'getAuthorization',
        summary: 'What a wallet asks to be authorized for',
        tags: ['issuance: authorization'],
        security: apiKey('connector'),
        responses: {
          '200': managementAnswers.answer('The authorization.', { content: json(ref.schema('Authorization')) }),
          ...managementAnswers.problems(401, 403, 404, 500),
        },
      }),
    },
    '/authorizations/{authorization_id}/complete': {
      parameters: [authorizationId],
      post: operation({
        operationId: 'completeAuthorization',
        summary: 'Complete (or deny) an authorization',
        tags: ['issuance: authorization'],
        security: apiKey('connector'),
        requestBody: jsonBody(ref.schema('CompleteAuthorization')),
        responses: {
          '200': managementAnswers.answer('Where to send the browser.', { content: json(ref.schema('AuthorizationResult')) }),
          ...managementAnswers.problems(400, 401, 403, 404, 409, 413, 415, 500),
        },
      }),
    },
  },
  public: {
    [PATHS.par]: {
      post: walletOperation({
        operationId: 'pushedAuthorizationRequest',
        summary: 'Pushed authorization request (RFC 9126)',
        description: 'Authenticated by the wallet attestation; recorded on the offer named by `issuer_state`. A `DPoP` proof or `dpop_jkt` binds the code to that DPoP key (RFC 9449 section 10.1): the token request must prove it.',
        parameters: [
          header('DPoP', 'Optional: a DPoP proof (RFC 9449) with `htu` = this endpoint under PUBLIC_URL, checked like the token endpoint\'s (no server nonce needed here). Binds the code to its key.'),
          header('OAuth-Client-Attestation', 'The wallet attestation (`oauth-client-attestation+jwt`, ES256, `x5c` to a trusted wallet provider).'),
          header('OAuth-Client-Attestation-PoP', 'Its proof of possession (`oauth-client-attestation-pop+jwt`), `aud` PUBLIC_URL, fresh `iat`, unused `jti`.'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: object(
                {
                  response_type: { const: 'code' },
                  client_id: string(),
                  redirect_uri: string(),
                  code_challenge: string(),
                  code_challenge_method: { const: 'S256' },
                  issuer_state: string('From the credential offer.'),
                },
                {
                  state: string(),
                  scope: string('Credential configuration ids.'),
                  authorization_details: string('JSON: `[{"type": "openid_credential", "credential_configuration_id": ...}]`.'),
                  dpop_jkt: string('RFC 9449 section 10: the base64url SHA-256 JWK thumbprint of the DPoP key the code is bound to; with a `DPoP` proof, its key.', { pattern: '^[A-Za-z0-9_-]{43}$' }),
                },
              ),
            },
          },
        },
        responses: {
          '201': managementAnswers.answer('The request_uri for the authorization endpoint, and the DPoP nonce for the token request.', {
            headers: { 'Cache-Control': ref.header('NoStore'), 'DPoP-Nonce': ref.header('DpopNonce') },
            content: json(ref.schema('PushedAuthorizationResponse')),
          }),
          '400': oauthError('A missing, repeated or wrong parameter, a `redirect_uri` with a fragment, spaces or control characters or a scheme a browser runs or renders (`javascript:`, `data:`, `vbscript:`, `file:`, `blob:`), PKCE other than S256, an unknown or missing `issuer_state`, an offer that ended or was authorized (`invalid_request`); a bad `DPoP` proof, or `dpop_jkt` not its key (`invalid_dpop_proof`).', [
            'invalid_dpop_proof',
            'invalid_request',
            'unsupported_response_type',
            'request_not_supported',
            'invalid_scope',
            'invalid_authorization_details',
          ]),
          '401': oauthError('The wallet attestation is missing or refused (untrusted, expired, withdrawn or suspended provider, a wallet providers list past its staleness window, `sub` not the client, a PoP with another `aud`, an old `iat` or a used `jti`); the description says which.', ['invalid_client']),
          '413': oauthError('The form is over 16 KiB.', ['invalid_request']),
          '415': oauthError('The body is not a form.', ['invalid_request']),
          '500': oauthError('The answer could not be made.', ['server_error']),
        },
      }),
    },
    [PATHS.authorize]: {
      get: walletOperation({
        operationId: 'authorize',
        summary: 'Authorization endpoint',
        description: 'Spends the request_uri and redirects the browser to the authentication URL with `authorization_id`.',
        parameters: [
          queryParameter('client_id', 'As in the pushed request.', string(), true),
          queryParameter('request_uri', 'From the pushed request.', string(), true),
          queryParameter('dpop_jkt', 'RFC 9449 section 10: binds the code to this DPoP key thumbprint; refused when the pushed request bound another.', string(undefined, { pattern: '^[A-Za-z0-9_-]{43}$' })),
        ],
        responses: {
          '302': { description: 'To the authentication URL.', headers: { Location: { description: 'The authentication URL with `authorization_id`.', required: true, schema: string() }, 'X-Request-Id': ref.header('RequestId') }, content: { 'text/html': { schema: string('A link to the same place, for browsers that do not follow redirects.') } } },
          '400': oauthError('A missing client_id or request_uri, an unknown, used or expired request_uri, another client, a malformed `dpop_jkt` or one naming another key than the pushed request.', ['invalid_request']),
          '500': oauthError('The answer could not be made.', ['server_error']),
        },
      }),
    },
  },
};
