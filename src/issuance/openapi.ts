// Issuance (OpenID4VCI 1.0, pre-authorized code flow, src/issuance/): offers on the management
// listener; the wallet's documents and protocol endpoints on the public one.
import { AUTHORIZATION_CODE_GRANT, PATHS, PRE_AUTHORIZED_CODE_GRANT } from './context.js';
import { TX_CODE_LENGTH } from './offer/request.js';
import {
  apiKey,
  arrayOf,
  dateTime,
  header,
  json,
  jsonBody,
  KEYS_UNAVAILABLE,
  managementAnswers,
  noAuthentication,
  nullable,
  oauthError,
  object,
  operation,
  pathParameter,
  ref,
  string,
  uuid,
} from '../http/openapi/components.js';
import type { Area, Operation, Response, Schema } from '../http/openapi/types.js';

/** `/oidc4vci/offers/:offer_id` as an OpenAPI template. */
const template = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const TxCode = object(
  { input_mode: { enum: ['numeric', 'text'] }, length: { type: 'integer', minimum: TX_CODE_LENGTH.min, maximum: TX_CODE_LENGTH.max } },
  { description: string('Shown by wallets: what the code is and where the user finds it.', { maxLength: 300 }) },
);
const LocaleDisplay = object({ name: string(), locale: string() }, { description: string() });
const LangDisplay = object({ lang: string(), name: string() }, { description: string() });
const ClaimPath = arrayOf(string(), { minItems: 1 });

const schemas: Readonly<Record<string, Schema>> = {
  TxCode,
  CreateOffer: object(
    {
      credential_configuration_id: string('A configured credential configuration (see the issuer metadata).', { minLength: 1 }),
      claims: { type: 'object', description: 'Claim values, nested as the configuration\'s paths say; `iss`, `sub`, `iat`, `exp`, `vct` and `cnf` are set by the connector.' },
    },
    {
      tx_code: ref.schema('TxCode'),
      grant: { enum: ['pre-authorized_code', 'authorization_code'], description: 'Default `pre-authorized_code`. With `authorization_code` the wallet authenticates the user at the integrator\'s page (no `tx_code`); `claims` may then wait until the authorization is completed.' },
      authentication_url: string('Only with `authorization_code`: where the user authenticates, overriding the tenant\'s (AUTHENTICATION_URL for the bootstrap tenant); `authorization_id` is added.', { format: 'uri' }),
    },
  ),
  CreatedOffer: object(
    {
      offer_id: uuid(),
      credential_offer_uri: string('`openid-credential-offer://` URI: render as a QR code or open as a deep link.', { pattern: '^openid-credential-offer://\\?credential_offer_uri=' }),
    },
    { tx_code_value: string('Only when `tx_code` was sent: deliver it to the user through another channel, never in the QR code. Not stored.') },
  ),
  Offer: object(
    {
      offer_id: uuid(),
      credential_configuration_id: string(),
      status: { enum: ['OFFER_CREATED', 'ISSUED', 'FAILED', 'EXPIRED'] },
      tx_code_required: { type: 'boolean' },
      created_at: dateTime(),
      expires_at: dateTime(),
      ended_at: nullable(dateTime()),
      claims_purged: { type: 'boolean', description: 'The claims are gone (the offer ended and its data key was destroyed).' },
    },
    { error_details: string('Why the offer FAILED.') },
  ),
  CredentialOffer: object(
    {
      credential_issuer: string('PUBLIC_URL.', { format: 'uri' }),
      credential_configuration_ids: arrayOf(string(), { minItems: 1, maxItems: 1 }),
      grants: {
        oneOf: [
          object({ [PRE_AUTHORIZED_CODE_GRANT]: object({ 'pre-authorized_code': string() }, { tx_code: ref.schema('TxCode') }) }),
          object({ [AUTHORIZATION_CODE_GRANT]: object({ issuer_state: string('Send it in the pushed authorization request.') }) }),
        ],
      },
    },
    {},
    'OpenID4VCI 1.0 section 4.1.',
  ),
  CredentialIssuerMetadata: object(
    {
      credential_issuer: string(undefined, { format: 'uri' }),
      credential_endpoint: string(undefined, { format: 'uri' }),
      nonce_endpoint: string(undefined, { format: 'uri' }),
      credential_configurations_supported: {
        type: 'object',
        additionalProperties: {
          oneOf: [
            object({
              format: { const: 'dc+sd-jwt' },
              scope: string('The scope to ask for in the authorization code flow: the configuration\'s id.'),
              vct: string(),
              cryptographic_binding_methods_supported: arrayOf({ const: 'jwk' }),
              credential_signing_alg_values_supported: arrayOf({ const: 'ES256' }),
              proof_types_supported: object({ jwt: object({ proof_signing_alg_values_supported: arrayOf({ const: 'ES256' }) }) }),
              credential_metadata: object({
                display: arrayOf(LocaleDisplay),
                claims: arrayOf(object({ path: ClaimPath, mandatory: { type: 'boolean' }, display: arrayOf(LocaleDisplay) })),
              }),
            }),
            object(
              {
                format: { const: 'mso_mdoc' },
                doctype: string('The ISO/IEC 18013-5 docType, e.g. `org.iso.18013.5.1.mDL`.'),
                scope: string(),
                cryptographic_binding_methods_supported: arrayOf({ const: 'cose_key' }),
                credential_signing_alg_values_supported: arrayOf({ const: -7 }, { description: 'COSE ES256.' }),
                proof_types_supported: object({ jwt: object({ proof_signing_alg_values_supported: arrayOf({ const: 'ES256' }) }) }),
                credential_metadata: object({
                  display: arrayOf(LocaleDisplay),
                  claims: arrayOf(object({ path: arrayOf(string(), { minItems: 2, maxItems: 2, description: '`[namespace, element identifier]`.' }), mandatory: { type: 'boolean' }, display: arrayOf(LocaleDisplay) })),
                }),
              },
              {},
              'An ISO mdoc (OpenID4VCI 1.0 Appendix A.2); the credential is a base64url IssuerSigned.',
            ),
          ],
        },
      },
    },
    {},
    'OpenID4VCI 1.0 section 12.2; no `authorization_servers`: the issuer is its own.',
  ),
  AuthorizationServerMetadata: object(
    {
      issuer: string(undefined, { format: 'uri' }),
      authorization_endpoint: string(undefined, { format: 'uri' }),
      token_endpoint: string(undefined, { format: 'uri' }),
      pushed_authorization_request_endpoint: string(undefined, { format: 'uri' }),
      require_pushed_authorization_requests: { const: true },
      response_types_supported: arrayOf({ const: 'code' }),
      grant_types_supported: arrayOf({ enum: [AUTHORIZATION_CODE_GRANT, PRE_AUTHORIZED_CODE_GRANT] }),
      'pre-authorized_grant_anonymous_access_supported': { const: true },
      code_challenge_methods_supported: arrayOf({ const: 'S256' }),
      token_endpoint_auth_methods_supported: arrayOf({ enum: ['attest_jwt_client_auth', 'none'] }),
      client_attestation_signing_alg_values_supported: arrayOf({ const: 'ES256' }),
      client_attestation_pop_signing_alg_values_supported: arrayOf({ const: 'ES256' }),
      authorization_response_iss_parameter_supported: { const: true },
      dpop_signing_alg_values_supported: arrayOf({ const: 'ES256' }),
    },
    {},
    'RFC 8414.',
  ),
  TypeMetadata: object(
    {
      vct: string(),
      display: arrayOf(LangDisplay),
      claims: arrayOf(
        object({
          path: ClaimPath,
          sd: { enum: ['always', 'allowed', 'never'] },
          mandatory: { type: 'boolean' },
          display: arrayOf(object({ lang: string(), label: string() }, { description: string() })),
        }),
      ),
    },
    { name: string() },
    'SD-JWT VC Type Metadata, draft-13 array form.',
  ),
  TokenResponse: object(
    {
      access_token: string('Bound to the DPoP key; valid until the offer\'s TTL, for this offer only.'),
      token_type: { const: 'DPoP' },
      expires_in: { type: 'integer', minimum: 1 },
    },
    {
      authorization_details: arrayOf(
        object({ type: { const: 'openid_credential' }, credential_configuration_id: string(), credential_identifiers: arrayOf(string(), { minItems: 1, maxItems: 1 }) }),
        { description: 'Only when the pushed authorization request had `authorization_details`.' },
      ),
    },
  ),
  Nonce: object({ c_nonce: string('Spent once by a key proof; expires after C_NONCE_TTL_SECONDS.') }),
  CredentialRequest: {
    allOf: [
      object({ proofs: object({ jwt: arrayOf(string('A key proof: `typ: openid4vci-proof+jwt`, `alg: ES256`, `jwk` header; `aud` PUBLIC_URL, fresh `iat`, an unused c_nonce.'), { minItems: 1, maxItems: 1 }) }) }),
      {
        oneOf: [
          object({ credential_configuration_id: string('The offer\'s configuration.') }),
          object({ credential_identifier: string('Instead of `credential_configuration_id`, when the token answer listed `credential_identifiers`.') }),
        ],
      },
    ],
  },
  CredentialResponse: object({ credentials: arrayOf(object({ credential: string('The SD-JWT VC, `<jws>~<disclosure>~...~`.') }), { minItems: 1, maxItems: 1 }) }),
};

const noStore = { 'Cache-Control': ref.header('NoStore') };
const wallet = (description: string, schema: string, headers: Readonly<Record<string, { $ref: string }>> = {}): Response =>
  managementAnswers.answer(description, { headers, content: json(ref.schema(schema)) });
const serverError = { '500': oauthError('The answer could not be made (at the credential endpoint: the offer is then FAILED).', ['server_error']) };
const dpopHeader = header('DPoP', 'A DPoP proof (RFC 9449): `typ: dpop+jwt`, `alg: ES256`, public `jwk`; `jti`, `htm: POST`, `htu` = this endpoint under PUBLIC_URL, fresh `iat`.');

const walletOperation = (op: Omit<Operation, 'tags' | 'security'> & { security?: Operation['security'] }): Operation =>
  operation({ tags: ['wallet: issuance'], security: noAuthentication, ...op });

export const issuanceArea: Area = {
  tags: [
    { name: 'issuance', description: 'Credential offers (OpenID4VCI 1.0, pre-authorized code): created by the integrator; Issuance Events arrive as callbacks.' },
    { name: 'wallet: issuance', description: 'What the wallet calls to redeem an offer. Errors are OAuth-style, never cached.' },
  ],
  schemas,
  management: {
    '/offers': {
      post: operation({
        operationId: 'createOffer',
        summary: 'Create a credential offer',
        description: 'The claims are checked against the configuration and sealed; `GET /offers/{offer_id}` finds the offer as soon as this answers.',
        tags: ['issuance'],
        security: apiKey('connector'),
        requestBody: jsonBody(ref.schema('CreateOffer'), {
          membership: { credential_configuration_id: 'membership', claims: { member_number: 'M-1001', given_name: 'Erika', family_name: 'Mustermann' }, tx_code: { input_mode: 'numeric', length: 6 } },
        }),
        responses: {
          '201': managementAnswers.answer('Created; OFFER_CREATED is sent as a callback.', { content: json(ref.schema('CreatedOffer')) }),
          ...managementAnswers.problems(400, 401, 403, 413, 415, 422, 500, KEYS_UNAVAILABLE),
        },
      }),
    },
    '/offers/{offer_id}': {
      parameters: [pathParameter('offer_id', 'The `offer_id` of `POST /offers`.')],
      get: operation({
        operationId: 'getOffer',
        summary: 'The status of an offer',
        tags: ['issuance'],
        security: apiKey('connector'),
        responses: {
          '200': managementAnswers.answer('The offer\'s status.', { content: json(ref.schema('Offer')) }),
          ...managementAnswers.problems(401, 403, 404, 500),
        },
      }),
    },
  },
  public: {
    [template(PATHS.offer)]: {
      parameters: [pathParameter('offer_id', 'From `credential_offer_uri`.')],
      get: walletOperation({
        operationId: 'getCredentialOffer',
        summary: 'The credential offer',
        responses: {
          '200': wallet('The offer, while it is open.', 'CredentialOffer', noStore),
          '404': oauthError('No open offer with this id (unknown, ended or past its TTL).', ['not_found']),
          ...serverError,
        },
      }),
    },
    [PATHS.issuerMetadata]: {
      get: walletOperation({
        operationId: 'getCredentialIssuerMetadata',
        summary: 'Credential Issuer Metadata',
        responses: { '200': wallet('The metadata.', 'CredentialIssuerMetadata'), ...serverError },
      }),
    },
    [PATHS.authorizationServerMetadata]: {
      get: walletOperation({
        operationId: 'getAuthorizationServerMetadata',
        summary: 'Authorization Server Metadata',
        responses: { '200': wallet('The metadata.', 'AuthorizationServerMetadata'), ...serverError },
      }),
    },
    [template(PATHS.typeMetadata)]: {
      parameters: [pathParameter('credential_configuration_id', 'A configured credential configuration id.')],
      get: walletOperation({
        operationId: 'getTypeMetadata',
        summary: 'SD-JWT VC Type Metadata',
        responses: {
          '200': wallet('The type metadata.', 'TypeMetadata'),
          '404': oauthError('No credential configuration has this id.', ['not_found']),
          ...serverError,
        },
      }),
    },
    [PATHS.token]: {
      post: walletOperation({
        operationId: 'token',
        summary: 'Token endpoint (pre-authorized code, authorization code)',
        description:
          'A bad DPoP proof spends nothing; the last allowed wrong `tx_code` (TX_CODE_MAX_ATTEMPTS) fails the offer. The authorization_code grant needs the wallet attestation headers, PKCE and a DPoP proof with the server\'s nonce; a code used twice is refused and revokes its token.',
        parameters: [
          { ...dpopHeader, required: true },
          header('OAuth-Client-Attestation', 'The wallet attestation: required with `authorization_code`, and with WALLET_ATTESTATION=required.'),
          header('OAuth-Client-Attestation-PoP', 'Its proof of possession, `aud` PUBLIC_URL.'),
        ],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                oneOf: [
                  object(
                    { grant_type: { const: PRE_AUTHORIZED_CODE_GRANT }, 'pre-authorized_code': string() },
                    { tx_code: string('Required when the offer has a transaction code; refused otherwise.'), client_id: string() },
                  ),
                  object(
                    { grant_type: { const: AUTHORIZATION_CODE_GRANT }, code: string(), code_verifier: string('PKCE (S256).'), redirect_uri: string('The one of the pushed request.') },
                    { client_id: string('The attestation\'s `sub`.') },
                  ),
                ],
              },
            },
          },
        },
        responses: {
          '200': wallet('A DPoP-bound access token.', 'TokenResponse', { ...noStore, Pragma: ref.header('NoCache'), 'DPoP-Nonce': ref.header('DpopNonce') }),
          '400': oauthError(
            'Missing or repeated parameters or no DPoP proof (`invalid_request`), another grant, an unknown, used, ended or expired code, a wrong tx_code, redirect_uri or code_verifier (`invalid_grant`), a bad proof or (authorization code) a proof of another key than the code is bound to (`invalid_dpop_proof`; the code stays unspent), a proof without the current nonce (`use_dpop_nonce`, with `DPoP-Nonce`).',
            ['invalid_request', 'unsupported_grant_type', 'invalid_grant', 'invalid_dpop_proof', 'use_dpop_nonce'],
            { 'DPoP-Nonce': ref.header('DpopNonce') },
          ),
          '401': oauthError('The wallet attestation is missing or refused (untrusted, expired, withdrawn or suspended provider, a wallet providers list past its staleness window, `sub` not the client, a PoP with another `aud`, an old `iat` or a used `jti`).', ['invalid_client']),
          '413': oauthError('The form is over 16 KiB.', ['invalid_request']),
          '415': oauthError('The body is not a form.', ['invalid_request']),
          ...serverError,
        },
      }),
    },
    [PATHS.nonce]: {
      post: walletOperation({
        operationId: 'nonce',
        summary: 'Nonce endpoint',
        description: 'No authentication, no body; nothing is recorded until the c_nonce is spent in a key proof.',
        responses: { '200': wallet('A fresh c_nonce (C_NONCE_TTL_SECONDS).', 'Nonce', noStore), ...serverError },
      }),
    },
    [PATHS.credential]: {
      post: walletOperation({
        operationId: 'credential',
        summary: 'Credential endpoint',
        description: 'Checks run in order (token, DPoP proof, request, key proof, c_nonce), each failing with its own error and recording nothing.',
        security: [{ dpop: [] }],
        parameters: [{ ...dpopHeader, description: `${dpopHeader.description} With \`ath\`, signed by the key the token is bound to.` }],
        requestBody: jsonBody(ref.schema('CredentialRequest')),
        responses: {
          '200': wallet('The credential; the offer is ISSUED.', 'CredentialResponse', { ...noStore, 'DPoP-Nonce': ref.header('DpopNonce') }),
          '400': oauthError(
            'The access token in the query (`invalid_request`); a body that is not one request with one proof; another configuration; response encryption asked for; a bad key proof; a missing, unknown, expired or used c_nonce.',
            ['invalid_request', 'invalid_credential_request', 'unknown_credential_configuration', 'invalid_encryption_parameters', 'invalid_proof', 'invalid_nonce'],
          ),
          '401': oauthError(
            'No `Authorization: DPoP`, an unknown, revoked or used token, an ended or expired offer (`invalid_token`), a bad DPoP proof (`invalid_dpop_proof`), or (authorization code flow) a proof without the current nonce (`use_dpop_nonce`, with `DPoP-Nonce`).',
            ['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'],
            { 'WWW-Authenticate': ref.header('WwwAuthenticateDpop'), 'DPoP-Nonce': ref.header('DpopNonce') },
          ),
          '413': oauthError('The body is over 64 KiB.', ['invalid_credential_request']),
          '415': oauthError('The body is not JSON.', ['invalid_credential_request']),
          ...serverError,
        },
      }),
    },
  },
};
