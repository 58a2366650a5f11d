// What both listeners answer whatever the features: the health check, and on the management
// listener this document itself.
import { json, managementAnswers, noAuthentication, object, operation, string } from './components.js';
import type { Area, PathItem } from './types.js';

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
  management: { '/health': health, '/openapi.json': openApi },
  public: { '/health': health },
};
