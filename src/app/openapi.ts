// What both listeners answer whatever the features: the health routes, and on the management
// listener the metrics and this document itself.
import { arrayOf, json, managementAnswers, noAuthentication, object, operation, ref, string } from '../http/openapi/components.js';
import type { Area, PathItem } from '../http/openapi/types.js';

const health: PathItem = {
  get: operation({
    operationId: 'health',
    summary: 'Health check',
    description: 'Answers as soon as the listener serves requests; no authentication on either listener.',
    tags: ['service'],
    security: noAuthentication,
    responses: { '200': managementAnswers.answer('The listener is up.', { content: json(object({ status: { const: 'ok' } })) }) },
  }),
};

const live: PathItem = {
  get: operation({
    operationId: 'liveness',
    summary: 'Liveness probe',
    description: 'Answers while the process serves requests, also while it starts.',
    tags: ['service'],
    security: noAuthentication,
    responses: { '200': managementAnswers.answer('The process is up.', { content: json(object({ status: { const: 'live' } })) }) },
  }),
};

const Readiness = (status: string) =>
  object({
    status: { const: status },
    checks: arrayOf(object({ name: string('`store`, `projections`, `quarantine`, `started`, or a feature\'s own.'), ok: { type: 'boolean' } }, { detail: string('Why the check fails, in fixed words and counts.') })),
  });

const ready: PathItem = {
  get: operation({
    operationId: 'readiness',
    summary: 'Readiness probe',
    description: 'Whether to send this instance traffic: the store answers, the read models are caught up within READINESS_MAX_LAG_MS, no quarantined event is unacknowledged, the service has started.',
    tags: ['service'],
    security: noAuthentication,
    responses: {
      '200': managementAnswers.answer('Ready.', { content: json(Readiness('ready')), headers: { 'Cache-Control': ref.header('NoStore') } }),
      '503': managementAnswers.answer('Not ready: each failing check says why.', { content: json(Readiness('not_ready')), headers: { 'Cache-Control': ref.header('NoStore') } }),
    },
  }),
};

const metrics: PathItem = {
  get: operation({
    operationId: 'metrics',
    summary: 'Prometheus metrics of this instance',
    description: 'The Prometheus text format; labels carry route templates and statuses, never identifiers. No API key (see the README, Metrics).',
    tags: ['service'],
    security: noAuthentication,
    responses: { '200': managementAnswers.answer('The metrics.', { content: { 'text/plain': { schema: string() } } }) },
  }),
};

const openApi: PathItem = {
  get: operation({
    operationId: 'openApiDocument',
    summary: 'This OpenAPI 3.1 document',
    description:
      'Served without authentication: it describes the routes every deployment has, holds nothing of any tenant, and tools fetch it without credentials. ' +
      'Both listeners are described; the public listener\'s operations name its server (`PUBLIC_URL`).',
    tags: ['service'],
    security: noAuthentication,
    responses: {
      '200': managementAnswers.answer('The document.', {
        content: json({
          ...object({ openapi: string(undefined, { pattern: '^3\\.1\\.\\d+$' }), info: { type: 'object' }, paths: { type: 'object' } }, {}, 'An OpenAPI 3.1 document.'),
          additionalProperties: true,
        }),
      }),
    },
  }),
};

export const listenersArea: Area = {
  tags: [{ name: 'service', description: 'What both listeners answer, whatever the feature.' }],
  management: { '/health': health, '/health/live': live, '/health/ready': ready, '/metrics': metrics, '/openapi.json': openApi },
  public: { '/health': health, '/health/live': live, '/health/ready': ready },
};
