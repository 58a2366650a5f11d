// Verification (OpenID4VP 1.0 under HAIP, src/verification/): `POST /oidc4vp` and a DC API
// session's answer on the management listener; the request object and the response URI on the
// public one.
import type { Config } from '../config/config.js';
import { REQUEST_OBJECT_TYPE } from './authorizationRequest.js';
import {
  apiKey,
  arrayOf,
  dateTime,
  jsonBody,
  KEYS_UNAVAILABLE,
  managementAnswers,
  noAuthentication,
  oauthError,
  object,
  operation,
  pathParameter,
  queryParameter,
  ref,
  string,
  json,
} from '../http/openapi/components.js';
import type { Area, Operation, Response, Schema } from '../http/openapi/types.js';

const sessionState = string('256 random bits, base64url: the session\'s handle and the callback\'s `state`.', { pattern: '^[A-Za-z0-9_-]{43}$' });
const nonEmpty = (items: Schema | { $ref: string }, description?: string): Schema => arrayOf(items, { minItems: 1, ...(description ? { description } : {}) });
const Identifier = string('Letters, digits, `_` and `-`.', { pattern: '^[A-Za-z0-9_-]+$' });

const credentialQueryOptions = (holderBinding: string): Record<string, Schema | { $ref: string }> => ({
  multiple: { type: 'boolean', default: false },
  claim_sets: nonEmpty(nonEmpty(Identifier), 'Alternative sets of claim ids, in order of preference; every claim then needs an `id`.'),
  require_cryptographic_holder_binding: { type: 'boolean', default: true, description: holderBinding },
  trusted_authorities: nonEmpty(ref.schema('TrustedAuthority')),
});

const schemas: Readonly<Record<string, Schema>> = {
  ClaimsQuery: object(
    { path: nonEmpty({ type: ['string', 'integer', 'null'], minimum: 0 }, 'A claims path: keys, array indices, or null for every element.') },
    { id: Identifier, values: nonEmpty({ type: ['string', 'integer', 'boolean'] }, 'Satisfied only when a value the path selects is one of these.') },
  ),
  TrustedAuthority: object({
    type: {
      enum: ['aki', 'etsi_tl'],
      description:
        '`aki`: AuthorityKeyIdentifier of a CA in the issuer\'s chain (OpenID4VP 1.0 section 6.1.1). `etsi_tl`: the URL of a trusted list this instance follows ' +
        '(X509_TRUST_RESOLUTION_MODE=lotl; otherwise 400). `openid_federation` is refused (400).',
    },
    values: nonEmpty(string('A base64url KeyIdentifier (`aki`) or a trusted list URL (`etsi_tl`).', { minLength: 1 })),
  }),
  CredentialQuery: {
    oneOf: [ref.schema('SdJwtVcQuery'), ref.schema('MsoMdocQuery')],
    description: 'A credential query of one of the two formats this connector verifies, told apart by `format`; a DCQL query may mix them.',
  },
  SdJwtVcQuery: object(
    {
      id: { ...Identifier, description: 'Unique in the query, not `__proto__`; the key of the callback\'s `credentials` and `credentialsRaw`.' },
      format: { const: 'dc+sd-jwt', description: 'SD-JWT VC (OpenID4VP 1.0, B.3).' },
      meta: object({ vct_values: nonEmpty(string(undefined, { minLength: 1 }), 'Accepted VCTs.') }),
      claims: nonEmpty(ref.schema('ClaimsQuery'), 'Required here: only what is asked for may be disclosed.'),
    },
    credentialQueryOptions('When false, `kbKeyId` and `kbSignatureIsValid` are absent from the callback.'),
  ),
  MdocClaimsQuery: object(
    {
      path: arrayOf(string(undefined, { minLength: 1 }), { minItems: 2, maxItems: 2, description: '`[namespace, element identifier]`, e.g. `["org.iso.18013.5.1", "family_name"]`.' }),
    },
    {
      id: Identifier,
      values: nonEmpty({ type: ['string', 'integer', 'boolean'] }, 'Satisfied only when the element\'s value is one of these.'),
      intent_to_retain: { type: 'boolean', description: 'Optional (OpenID4VP 1.0 B.2.4), on every channel: told to the wallet, whether the relying party keeps the element. Absent means false where ISO/IEC 18013-5 needs a value (the Annex C ItemsRequest).' },
    },
  ),
  MsoMdocQuery: object(
    {
      id: { ...Identifier, description: 'Unique in the query, not `__proto__`; the key of the callback\'s `credentials` and `credentialsRaw`.' },
      format: { const: 'mso_mdoc', description: 'ISO/IEC 18013-5 mdoc (OpenID4VP 1.0, B.2), e.g. the mDL or the PID in mdoc form.' },
      meta: object({ doctype_value: string('The docType asked for, e.g. `org.iso.18013.5.1.mDL` or `eu.europa.ec.eudi.pid.1`.', { minLength: 1 }) }),
      claims: nonEmpty(ref.schema('MdocClaimsQuery'), 'Required here: elements not asked for are never delivered.'),
    },
    credentialQueryOptions('An mdoc is always device-signed: `kbKeyId` (the device key\'s thumbprint) and `kbSignatureIsValid` are always in the callback. No transaction data may name an mdoc query.'),
  ),
  CredentialSetQuery: object({ options: nonEmpty(nonEmpty(Identifier), 'Alternatives, each a list of credential query ids.') }, { required: { type: 'boolean', default: true } }),
  DcqlQuery: object(
    { credentials: nonEmpty(ref.schema('CredentialQuery')) },
    { credential_sets: nonEmpty(ref.schema('CredentialSetQuery')) },
    'DCQL (OpenID4VP 1.0 section 6). Unknown members are dropped; ids must be unique and every reference must name something that exists.',
  ),
  TransactionData: {
    ...object(
      {
        type: string('The transaction context.', { minLength: 1 }),
        credential_ids: nonEmpty(string(undefined, { minLength: 1 }), 'Credential query ids that can authorize it; each needs holder binding.'),
      },
      {},
      'Further members, defined by the credential type\'s rulebook, are kept as sent.',
    ),
    additionalProperties: true,
  },
  CreatedPresentationRequest: {
    oneOf: [ref.schema('CreatedRequestUriPresentationRequest'), ref.schema('CreatedDcApiPresentationRequest')],
    description: 'By request URI (the default), or for the Digital Credentials API (`"flow_type": "dc_api"`).',
  },
  CreatedRequestUriPresentationRequest: object({
    state: sessionState,
    same_device_request_uri: string('`openid4vp://` URI for a wallet on the same device; pass it unchanged.', { pattern: '^openid4vp://\\?' }),
    cross_device_request_uri: string('`openid4vp://` URI to render as a QR code.', { pattern: '^openid4vp://\\?' }),
    expires_at: dateTime(),
  }),
  CreatedDcApiPresentationRequest: object({
    state: sessionState,
    expires_at: dateTime(),
    dc_api_request: {
      oneOf: [ref.schema('DcApiRequest'), arrayOf(ref.schema('DcApiRequest'), { minItems: 1, description: 'One per entry of `dc_api_protocols`, in its order.' })],
      description:
        'What the page passes to the browser, as an entry (or the entries) of `navigator.credentials.get({digital: {requests: [...]}})`. ' +
        'A single object unless `dc_api_protocols` was given.',
    },
  }),
  DcApiRequest: object(
    {
      protocol: { enum: ['openid4vp-v1-signed', 'openid4vp-v1-unsigned', 'org-iso-mdoc'], description: 'The exchange protocol (OpenID4VP 1.0 A.1; `org-iso-mdoc`: ISO/IEC TS 18013-7 Annex C).' },
      data: {
        type: 'object',
        additionalProperties: true,
        description:
          '`openid4vp-v1-signed`: `{request}`, a request object (compact JWS, `typ: oauth-authz-req+jwt`, ES256, `x5c`) with `client_id` (x509_hash), `expected_origins`, ' +
          '`response_type: vp_token`, `response_mode: dc_api.jwt`, `nonce`, `dcql_query`, `client_metadata` (the response-encryption key) and `transaction_data` when given. ' +
          '`openid4vp-v1-unsigned`: those parameters themselves, without `client_id` and `expected_origins`. ' +
          '`org-iso-mdoc`: `{deviceRequest, encryptionInfo}`, both base64url (no padding) CBOR: a DeviceRequest (version 1.0, one DocRequest per credential query, no readerAuth) and ' +
          'EncryptionInfo `["dcapi", {nonce, recipientPublicKey}]` (a P-256 COSE_Key of its own).',
      },
    },
  ),
  DcApiAnswer: object(
    {
      origin: string('The origin of the page that called the Digital Credentials API, e.g. `https://shop.example`: it must be one of the request\'s `expected_origins` (else VERIFICATION_FAILED).', { minLength: 1 }),
      data: {
        type: 'object',
        additionalProperties: true,
        description:
          'The `data` of the browser\'s DigitalCredential, exactly as returned: `{response}` (a JWE to the request\'s key) or `{error}` for OpenID4VP; ' +
          '`{response}` (base64url CBOR EncryptedResponse `["dcapi", {enc, cipherText}]`, the DeviceResponse sealed by HPKE to the request\'s recipient key) for `org-iso-mdoc`.',
      },
    },
    {
      protocol: string('The `protocol` of the browser\'s DigitalCredential, if forwarded; it must be one the request was offered in. Without it the protocol is told from the shape of `data`.', { minLength: 1 }),
    },
  ),
  PresentedCredentialsEvent: object(
    {
      status: { enum: ['FULFILLED', 'REJECTED', 'EXPIRED', 'PROCESSING_ERROR', 'VERIFICATION_FAILED'] },
      state: sessionState,
    },
    {
      errorDetails: string('REJECTED (the wallet\'s error code), PROCESSING_ERROR and VERIFICATION_FAILED: why.'),
      credentials: { type: 'object', additionalProperties: arrayOf({ type: 'object', additionalProperties: true }), description: 'FULFILLED: the credential objects by credential query id.' },
      credentialsRaw: { type: 'object', additionalProperties: arrayOf({ type: 'object', additionalProperties: true }), description: 'FULFILLED: the raw credential objects by credential query id.' },
    },
    'The Presented Credentials Event, exactly as the callback carries it (see the connector specification).',
  ),
};

const createBody = (config: Pick<Config, 'presentationExpiresInMin' | 'presentationExpiresInMax' | 'presentationExpiresIn'>): Schema =>
  object(
    { dcql_query: ref.schema('DcqlQuery') },
    {
      redirect_uri: string('Absolute http(s) URL without fragment, where the wallet sends the browser after a same-device flow (with `response_code`). Omitted: no redirect.', { format: 'uri' }),
      transaction_data: nonEmpty(ref.schema('TransactionData')),
      expires_in: {
        type: 'integer',
        minimum: config.presentationExpiresInMin,
        maximum: config.presentationExpiresInMax,
        default: config.presentationExpiresIn,
        description: 'Lifetime of the request in seconds (PRESENTATION_EXPIRES_IN_MIN to _MAX; default PRESENTATION_EXPIRES_IN).',
      },
      flow_type: {
        const: 'dc_api',
        description: 'A request for the Digital Credentials API (OpenID4VP 1.0 Appendix A): answered with `dc_api_request` for the page, not request URIs; `expected_origins` required, `redirect_uri` refused.',
      },
      expected_origins: nonEmpty(
        string('An https origin without path, e.g. `https://shop.example`, exactly as the browser names the page.', { pattern: '^https://[^/?#]+$' }),
        'With `"flow_type": "dc_api"` only: the pages that may present this request; the answer\'s origin must be one of them.',
      ),
      dc_api_signed: { type: 'boolean', default: true, description: 'With `"flow_type": "dc_api"` only: `false` offers an unsigned request (`openid4vp-v1-unsigned`) for wallets that cannot verify requests.' },
      dc_api_protocols: nonEmpty(
        { enum: ['openid4vp-v1-signed', 'openid4vp-v1-unsigned', 'org-iso-mdoc'] },
        'With `"flow_type": "dc_api"` only, instead of `dc_api_signed`: the protocols to offer, each once; `dc_api_request` is then an array in this order. ' +
          '`org-iso-mdoc` (ISO/IEC TS 18013-7 Annex C, the form Safari answers) only for a `dcql_query` that asks mso_mdoc credentials alone, each docType once.',
      ),
    },
  );

const state = pathParameter('state', 'The `state` of `POST /oidc4vp` (43 base64url characters; anything else is 404).');
const flowType = queryParameter('flow_type', 'The flow the URI was handed out for.', { enum: ['same-device', 'cross-device'] }, true);
const walletError = (description: string): Response => oauthError(description, ['invalid_request']);
const noStore = { 'Cache-Control': ref.header('NoStore') };

const REQUEST_OBJECT = `application/${REQUEST_OBJECT_TYPE}`;
const requestObject = (description: string): Response =>
  managementAnswers.answer(description, {
    headers: noStore,
    content: { [REQUEST_OBJECT]: { schema: string('A compact JWS: header `typ: oauth-authz-req+jwt`, `alg: ES256`, `x5c`; see the README for its claims.', { pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' }) } },
  });

/** Unexpected failures on these routes, and keys that cannot be used now, are an OAuth `server_error`. */
const walletRouteErrors = (statuses: { readonly [status: string]: string }): Operation['responses'] => ({
  ...Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, walletError(description)])),
  '500': oauthError('The answer could not be made (the keys are unavailable, or an unexpected failure); nothing was changed.', ['server_error']),
});

const requestObjectErrors = walletRouteErrors({
  '400':
    'flow_type missing or wrong, the request has ended or expired (a retry is a new `POST /oidc4vp`), it was created for the Digital Credentials API, ' +
    'or the tenant\'s access key has changed since it was made (the retired key signs nothing; a retry is a new `POST /oidc4vp`).',
  '404': 'No presentation request has this state.',
});

const formErrors = {
  '413': 'The form is over the limit (64 KiB for a request form, 1 MiB for a response).',
  '415': 'The body is not `application/x-www-form-urlencoded`.',
};

const FORM = 'application/x-www-form-urlencoded';

export const verificationArea = (config: Pick<Config, 'presentationExpiresInMin' | 'presentationExpiresInMax' | 'presentationExpiresIn'>): Area => ({
  tags: [
    { name: 'verification', description: 'Presentation requests (OpenID4VP 1.0, HAIP): created by the integrator; the outcome arrives as a callback.' },
    { name: 'wallet: verification', description: 'What the wallet calls to fetch a presentation request and answer it. Errors are OAuth-style.' },
  ],
  schemas,
  management: {
    '/oidc4vp': {
      post: operation({
        operationId: 'createPresentationRequest',
        summary: 'Create a presentation request',
        description:
          'Records the request and answers the two `openid4vp://` URIs. The outcome (FULFILLED, REJECTED, EXPIRED, PROCESSING_ERROR, VERIFICATION_FAILED) is delivered once as a callback. ' +
          'The request is the tenant\'s: signed by its active access key (`client_id` the `x509_hash:` of its certificate) when it has one, else by the deployment\'s; ' +
          'its registration certificate, when it has one, rides in `verifier_info` (format `registration_cert`).',
        tags: ['verification'],
        security: apiKey('connector'),
        requestBody: jsonBody(createBody(config), {
          pid: {
            dcql_query: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] },
          },
          dcApi: {
            flow_type: 'dc_api',
            expected_origins: ['https://shop.example'],
            dcql_query: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] },
          },
          dcApiMdoc: {
            flow_type: 'dc_api',
            expected_origins: ['https://shop.example'],
            dc_api_protocols: ['openid4vp-v1-signed', 'org-iso-mdoc'],
            dcql_query: {
              credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' }, claims: [{ path: ['org.iso.18013.5.1', 'age_over_18'], intent_to_retain: false }] }],
            },
          },
        }),
        responses: {
          '201': managementAnswers.answer('Created; nothing is sent to any wallet until one fetches the request URI, or the page passes `dc_api_request` to the browser.', { content: json(ref.schema('CreatedPresentationRequest')) }),
          ...managementAnswers.problems(
            400,
            401,
            403,
            413,
            415,
            [
              422,
              'The tenant enforces its registration and the DCQL query asks for a credential type or claim path its registration certificate does not register: ' +
                'one `errors` entry per type (`…meta.vct_values[k]`, `…meta.doctype_value`) or claim path (`…claims[j].path`), naming the query id and the path. Nothing is recorded.',
            ],
            500,
            KEYS_UNAVAILABLE,
          ),
        },
      }),
    },
    '/oidc4vp/{state}/dc-api-response': {
      parameters: [state],
      post: operation({
        operationId: 'postDcApiResponse',
        summary: 'The wallet\'s answer over the Digital Credentials API',
        description:
          'For a request created with `"flow_type": "dc_api"`: the integrator forwards what the browser returned to its page, with the page\'s origin. ' +
          'The answer is verified bound to that origin (KB-JWT `aud` = `origin:<origin>`; an mdoc\'s SessionTranscript with OpenID4VPDCAPIHandover, or for `org-iso-mdoc` ' +
          'the `dcapi` handover over the request\'s EncryptionInfo and the origin, which is also the HPKE info) and the session ends with ' +
          'exactly one outcome, answered here at once and delivered as the callback too.',
        tags: ['verification'],
        security: apiKey('connector'),
        requestBody: jsonBody(ref.schema('DcApiAnswer')),
        responses: {
          '200': managementAnswers.answer('The outcome, whatever it is: the Presented Credentials Event as the callback carries it.', { headers: noStore, content: json(ref.schema('PresentedCredentialsEvent')) }),
          ...managementAnswers.problems(400, 401, 403, 404, 409, 413, 415, 500, KEYS_UNAVAILABLE),
        },
      }),
    },
  },
  public: {
    '/oidc4vp/{state}/request': {
      parameters: [state, flowType],
      get: operation({
        operationId: 'getRequestObject',
        summary: 'The signed request object',
        description: 'The first fetch of each flow type makes the request\'s nonce and encryption key; later fetches are the same request signed afresh (nothing is recorded).',
        tags: ['wallet: verification'],
        security: noAuthentication,
        responses: { '200': requestObject('The request object.'), ...requestObjectErrors },
      }),
      head: operation({
        operationId: 'headRequestObject',
        summary: 'Status and headers of the request object',
        description: 'What a GET would answer, from a read, without a body; records nothing.',
        tags: ['wallet: verification'],
        security: noAuthentication,
        responses: { '200': requestObject('The request object would be served.'), ...requestObjectErrors },
      }),
      post: operation({
        operationId: 'postRequestObject',
        summary: 'The signed request object (request_uri_method=post)',
        description: 'OpenID4VP 1.0 section 5.10: the form\'s `wallet_nonce` is echoed in the request object; `wallet_metadata` is accepted and not used.',
        tags: ['wallet: verification'],
        security: noAuthentication,
        requestBody: {
          required: false,
          content: { [FORM]: { schema: object({}, { wallet_nonce: string(), wallet_metadata: string() }) } },
        },
        responses: {
          '200': requestObject('The request object, with `wallet_nonce`.'),
          ...walletRouteErrors({
            '400':
              'flow_type missing or wrong, a repeated wallet_nonce, the request has ended or expired, it was created for the Digital Credentials API, ' +
              'or the tenant\'s access key has changed since it was made.',
            '404': 'No presentation request has this state.',
            ...formErrors,
          }),
        },
      }),
    },
    '/oidc4vp/{state}/response': {
      parameters: [state],
      post: operation({
        operationId: 'postAuthorizationResponse',
        summary: 'The wallet\'s response (direct_post.jwt)',
        description:
          'Either `response`, a JWE (`ECDH-ES`, `A128GCM` or `A256GCM`) to the request\'s key holding `vp_token` and `state`, or an error response. ' +
          'Whatever the answer, the session ends with exactly one outcome.',
        tags: ['wallet: verification'],
        security: noAuthentication,
        requestBody: {
          required: true,
          content: {
            [FORM]: {
              schema: {
                oneOf: [
                  object({ response: string('The encrypted response (compact JWE).') }),
                  object({ error: string('An OAuth 2.0 error code, e.g. `access_denied`.') }, { error_description: string(), state: string() }),
                ],
              },
            },
          },
        },
        responses: {
          '200': managementAnswers.answer('Accepted: the presentation verified, or the wallet\'s error was recorded.', {
            headers: noStore,
            content: json(object({}, { redirect_uri: string('Same-device flow with a `redirect_uri`: where to send the browser, with `response_code`.', { format: 'uri' }) })),
          }),
          ...walletRouteErrors({
            '400': 'A form that is neither a response nor an error, a session that has ended or expired or was created for the Digital Credentials API (nothing recorded), a response that cannot be processed (the reason in `error_description`) or fails verification (`error_description` is always `The presentation failed verification.`: the reason goes to the integrator\'s callback).',
            '404': 'No presentation request has this state.',
            ...formErrors,
          }),
        },
      }),
    },
  },
});
