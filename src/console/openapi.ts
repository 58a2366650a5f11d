// The console's static files and its own JSON routes (src/console/staticFiles.ts, routes.ts).
import { anyJson, apiKey, arrayOf, dateTime, json, managementAnswers, noAuthentication, nullable, object, operation, pathParameter, queryParameter, ref, string } from '../http/openapi/components.js';
import type { Area, Parameter, Schema } from '../http/openapi/types.js';
import { EXPIRY_WARNING_DAYS } from './identity.js';
import { MAX_LIMIT } from './query.js';

const page = (item: string, description: string): Schema =>
  object({ items: arrayOf(ref.schema(item)), next: nullable(string('Pass as `after` for the next page; null on the last page.')) }, {}, description);

const listParameters = (filterName: string, values: readonly string[]): Parameter[] => [
  queryParameter('limit', `Rows per page, 1 to ${MAX_LIMIT} (default 25).`, { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
  queryParameter('after', 'The `next` of the previous page: keyset pagination, as fast on the thousandth page as on the first.'),
  queryParameter('from', 'Created at or after this instant (ISO 8601, UTC).', dateTime()),
  queryParameter('until', 'Created before this instant (ISO 8601, UTC).', dateTime()),
  queryParameter(filterName, 'Only rows in this state.', { enum: [...values] }),
];

const PRESENTATION_STATUSES = ['OPEN', 'FULFILLED', 'REJECTED', 'EXPIRED', 'PROCESSING_ERROR', 'VERIFICATION_FAILED'];
const OFFER_STATUSES = ['OFFER_CREATED', 'ISSUED', 'FAILED', 'EXPIRED'];
const DELIVERY_STATES = ['pending', 'delivered', 'abandoned', 'undeliverable'];

const EXPIRES_SOON: Schema = { type: 'boolean', description: `It expires within ${EXPIRY_WARNING_DAYS} days (or has expired).` };

/** What GET /console/api/registration answers of a registration certificate. */
const REGISTRATION: Schema = object(
  {
    enforce_registration: { type: 'boolean', description: 'Presentation requests asking for what the certificate does not register are refused (422).' },
    subject: nullable(string('The registration certificate\'s `sub`: the relying party it registers (its `legal_name`, or `sub` as JSON).')),
    name: nullable(string('Its `name`, where it has one.')),
    signer: nullable(string('The subject of its `x5c` leaf: who signed it.')),
    not_after: nullable(dateTime('Its `exp`, else the end of its signer\'s certificate.')),
    expires_soon: EXPIRES_SOON,
    credentials: { type: 'integer', description: 'How many credential types it registers.' },
  },
  {},
  'The tenant\'s registration certificate as the Identity page shows it.',
);

const textAnswer = (description: string, type: string) =>
  managementAnswers.answer(description, { content: { [type]: { schema: string() } } });

export const consoleArea: Area = {
  tags: [{ name: 'console', description: 'The web console (docs/console.md): its files, and the read routes it needs beyond the rest of the API.' }],
  schemas: {
    ConsolePresentation: object({
      state: string(),
      status: { enum: PRESENTATION_STATUSES },
      flow_type: nullable({ type: 'string', enum: ['same-device', 'cross-device', 'dc_api', null], description: 'How the wallet fetched the request; null until it did.' }),
      created_at: dateTime(),
      finished_at: nullable(dateTime()),
    }),
    ConsoleOffer: object({
      offer_id: string(),
      credential_configuration_id: string(),
      status: { enum: OFFER_STATUSES },
      tx_code_required: { type: 'boolean' },
      created_at: dateTime(),
      expires_at: dateTime(),
      ended_at: nullable(dateTime()),
      error_details: nullable(string()),
      claims_purged: { type: 'boolean', description: 'The offer\'s data key is destroyed: its claims are gone.' },
    }),
    ConsoleDelivery: object({
      delivery_id: string(),
      event_id: string('The flow the delivery is about: a session\'s `state`, an offer\'s id.'),
      status: string('The callback\'s status (`FULFILLED`, `ISSUED`...).'),
      source_stream: string('The stream whose event the delivery tells about.'),
      state: { enum: DELIVERY_STATES },
      attempts: { type: 'integer', minimum: 0 },
      next_attempt_at: nullable(dateTime()),
      abandon_reason: nullable(string()),
      data_destroyed: { type: 'boolean' },
      recorded_at: dateTime(),
      updated_at: dateTime(),
      attempt_log: arrayOf(
        object({
          attempt: { type: 'integer' },
          attempted_at: dateTime(),
          outcome: string(),
          http_status: nullable({ type: 'integer' }),
          detail: nullable(string()),
          duration_ms: { type: 'integer' },
        }),
      ),
    }),
    ConsoleStreamEvent: object({
      revision: { type: 'integer', minimum: 0 },
      position: string('The event\'s `$all` position, `commit/prepare`.'),
      id: string(),
      type: string(),
      created: dateTime(),
      metadata: anyJson('Who caused the event (`actor`), in answer to which request (`requestId`) and which command (`command`, its type; events recorded before it was kept lack it).'),
      data: anyJson('The event\'s data, every sealed value replaced by "[sealed: not shown]".'),
    }),
    ConsoleStream: object({
      stream: string(),
      notice: string('That claim values are never shown, and why.'),
      events: arrayOf(ref.schema('ConsoleStreamEvent')),
    }),
    ConsoleOutcomeCount: object({ bucket: string('The minute (`YYYY-MM-DDTHH:MM`) or hour (`YYYY-MM-DDTHH`), UTC.'), status: string(), count: { type: 'integer' } }),
    ConsoleDashboard: object({
      now: dateTime(),
      presentations_last_hour: arrayOf(ref.schema('ConsoleOutcomeCount'), { description: 'Sessions ended per minute by outcome.' }),
      presentations_last_day: arrayOf(ref.schema('ConsoleOutcomeCount'), { description: 'Sessions ended per hour by outcome.' }),
      deliveries: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Deliveries by state.' },
      certificates: arrayOf(
        object(
          {
            role: string('`access` (the verifier\'s access certificate) or `issuer`.'),
            owner: { enum: ['deployment', 'tenant'], description: '`deployment`: the key files or token labels of the environment; `tenant`: the tenant\'s own active signing key.' },
            subject: string(),
            not_after: dateTime(),
            expires_soon: EXPIRES_SOON,
          },
          { key_id: string('The tenant\'s signing key (`owner` `tenant`).') },
        ),
        { description: 'The certificates the service presents for the tenant, for expiry warnings: the deployment\'s and the tenant\'s active keys\'.' },
      ),
    }),
    ConsoleSigningKey: object({
      id: string('The signing key (the `signing-keys` resource id).'),
      revision: { type: 'integer' },
      etag: string('The `If-Match` of a change to the key, such as `POST /signing-keys/{id}/activate`.'),
      created_at: dateTime(),
      deleted_at: nullable(dateTime()),
      role: { enum: ['access', 'issuer'] },
      state: { enum: ['pending', 'ready', 'active', 'retired', 'destroyed'] },
      csr: nullable(string('The PKCS#10 request (PEM) the key signed.')),
      activated_at: nullable(dateTime()),
      retired_at: nullable(dateTime()),
      replaced_by: nullable(string('The key whose activation retired this one.')),
      certificate: nullable(
        object(
          { subject: string(), issuer: string(), not_before: dateTime(), not_after: dateTime(), expires_soon: EXPIRES_SOON },
          {},
          'The leaf of the key\'s certificate chain; null while the key is pending.',
        ),
      ),
    }),
    ConsoleTrustedLists: object({
      mode: { enum: ['static', 'lists'], description: '`static`: trust anchors only (X509_TRUST_RESOLUTION_MODE), no list is followed.' },
      lists: arrayOf(
        object(
          { source: string(), url: string(), state: { enum: ['current', 'past next update', 'cached fallback', 'stale', 'missing'] } },
          {
            territory: string(),
            sequenceNumber: { type: 'integer' },
            issuedAt: dateTime(),
            nextUpdate: dateTime(),
            fetchedAt: dateTime(),
            lastFailure: string(),
            digest: string('SHA-256 (hex) of the version held: what verification outcomes name.'),
            entities: { type: 'object', additionalProperties: { type: 'integer' }, description: 'The services the version lists, by category (`PID`, `WALLET_PROVIDER`..., `other`).' },
          },
        ),
      ),
    }),
  },
  management: {
    '/console/': {
      get: operation({
        operationId: 'consolePage',
        summary: 'The web console',
        description: 'Served without an API key: it asks for one. Strict Content-Security-Policy, never in a frame.',
        tags: ['console'],
        security: noAuthentication,
        responses: { '200': textAnswer('The console\'s page.', 'text/html'), ...managementAnswers.problems(500) },
      }),
    },
    '/console/{asset}': {
      get: operation({
        operationId: 'consoleAsset',
        summary: 'A file of the web console (script, style sheet)',
        tags: ['console'],
        security: noAuthentication,
        parameters: [pathParameter('asset', 'The file name, such as `console.js`.')],
        responses: {
          '200': managementAnswers.answer('The file.', { content: { 'text/javascript': { schema: string() }, 'text/css': { schema: string() }, 'image/png': { schema: string() } } }),
          ...managementAnswers.problems([404, 'The console has no such file.'], 500),
        },
      }),
    },
    '/console/api/presentations': {
      get: operation({
        operationId: 'consoleListPresentations',
        summary: 'A page of the tenant\'s presentation requests, newest first',
        tags: ['console'],
        security: apiKey('connector'),
        parameters: listParameters('status', PRESENTATION_STATUSES),
        responses: { '200': managementAnswers.answer('The page.', { content: json(page('ConsolePresentation', 'A page of sessions.')) }), ...managementAnswers.problems(400, 401, 403, 500) },
      }),
    },
    '/console/api/offers': {
      get: operation({
        operationId: 'consoleListOffers',
        summary: 'A page of the tenant\'s credential offers, newest first',
        tags: ['console'],
        security: apiKey('connector'),
        parameters: listParameters('status', OFFER_STATUSES),
        responses: { '200': managementAnswers.answer('The page.', { content: json(page('ConsoleOffer', 'A page of offers.')) }), ...managementAnswers.problems(400, 401, 403, 500) },
      }),
    },
    '/console/api/deliveries': {
      get: operation({
        operationId: 'consoleListDeliveries',
        summary: 'A page of the tenant\'s callback and DIDComm deliveries with their attempts, newest first',
        tags: ['console'],
        security: apiKey('connector'),
        parameters: [...listParameters('state', DELIVERY_STATES), queryParameter('flow', 'Only the deliveries about this flow: the stream of the event they tell of (`presentation-<state>`, `offer-<id>`).', string(undefined, { maxLength: 200 }))],
        responses: { '200': managementAnswers.answer('The page.', { content: json(page('ConsoleDelivery', 'A page of deliveries.')) }), ...managementAnswers.problems(400, 401, 403, 500) },
      }),
    },
    '/console/api/deliveries/{delivery_id}/resend': {
      post: operation({
        operationId: 'consoleResendDelivery',
        summary: 'Re-send an abandoned delivery',
        description: 'One more attempt of the same delivery (the same `webhook-id`), due at once: what `ops deliveries resend` does.',
        tags: ['console'],
        security: apiKey('connector'),
        parameters: [pathParameter('delivery_id', 'The delivery.')],
        responses: {
          '202': managementAnswers.answer('The re-send is recorded; the deliverer attempts it next.', { content: json(object({ delivery_id: string(), state: { const: 'pending' } })) }),
          ...managementAnswers.problems(401, 403, [404, 'No delivery of this tenant has this id.'], [409, 'The delivery is not abandoned, or its sealed data is destroyed.'], 500),
        },
      }),
    },
    '/console/api/streams/{stream}': {
      get: operation({
        operationId: 'consoleReadStream',
        summary: 'A stream of the tenant\'s, event by event, for the auditor',
        description: 'Presentation, offer, delivery and credential-status streams need `connector`; resource streams `resources`. Another tenant\'s stream, or one outside the key\'s scopes, is 404 like one that does not exist.',
        tags: ['console'],
        security: apiKey(),
        parameters: [pathParameter('stream', 'The stream name, `category-id`, such as `presentation-<state>`.')],
        responses: { '200': managementAnswers.answer('The stream.', { content: json(ref.schema('ConsoleStream')) }), ...managementAnswers.problems(401, [404, 'No stream of this tenant the key may read has this name.'], 500) },
      }),
    },
    '/console/api/streams/{stream}/live': {
      get: operation({
        operationId: 'consoleFollowStream',
        summary: 'A stream\'s events, then each new one as it is appended (server-sent events)',
        description: 'Each event is a `stream-event` whose data is a `ConsoleStreamEvent`; a comment line every 15 seconds keeps the connection open. Read it with fetch() streaming and the Authorization header (never a key in the URL).',
        tags: ['console'],
        security: apiKey(),
        parameters: [pathParameter('stream', 'The stream name, `category-id`.')],
        responses: { '200': textAnswer('The event stream, until the client closes it.', 'text/event-stream'), ...managementAnswers.problems(401, [404, 'No stream of this tenant the key may read has this name.'], 500) },
      }),
    },
    '/console/api/dashboard': {
      get: operation({
        operationId: 'consoleDashboard',
        summary: 'The dashboard\'s figures: sessions ended per minute and hour by outcome, deliveries by state',
        tags: ['console'],
        security: apiKey('connector'),
        responses: { '200': managementAnswers.answer('The figures.', { content: json(ref.schema('ConsoleDashboard')) }), ...managementAnswers.problems(401, 403, 500) },
      }),
    },
    '/console/api/signing-keys': {
      get: operation({
        operationId: 'consoleSigningKeys',
        summary: 'The tenant\'s signing keys with what their certificates say (subject, issuer, validity, expiry warning)',
        description: 'What the Identity page shows; the keys themselves are the `signing-keys` resources, which it changes (activation) with their `etag`.',
        tags: ['console'],
        security: apiKey('admin'),
        responses: { '200': managementAnswers.answer('The keys, oldest first.', { content: json(object({ items: arrayOf(ref.schema('ConsoleSigningKey')) })) }), ...managementAnswers.problems(401, 403, 500) },
      }),
    },
    '/console/api/registration': {
      get: operation({
        operationId: 'consoleRegistration',
        summary: 'What the tenant\'s registration certificate says (whom it registers, who signed it, until when, whether it is enforced)',
        description: 'What the Identity page shows; the registration itself is `/verifier`.',
        tags: ['console'],
        security: apiKey('admin'),
        responses: { '200': managementAnswers.answer('The registration, or null while the tenant has set none.', { content: json(object({ registration: nullable(REGISTRATION) })) }), ...managementAnswers.problems(401, 403, 500) },
      }),
    },
    '/console/api/trusted-lists': {
      get: operation({
        operationId: 'consoleTrustedLists',
        summary: 'Each trusted list this service follows: last fetch, sequence number, next update, state',
        tags: ['console'],
        security: apiKey(),
        responses: { '200': managementAnswers.answer('The lists.', { content: json(ref.schema('ConsoleTrustedLists')) }), ...managementAnswers.problems(401, 500) },
      }),
    },
  },
};
