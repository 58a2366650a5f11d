// The caller's own tenant and the service's state (src/tenancy/routes.ts).
import { apiKey, arrayOf, dateTime, managementAnswers, nullable, object, operation, ref, string, uuid, json } from '../http/openapi/components.js';
import { allScopes } from '../../streams/apiKey.js';
import type { Area } from '../http/openapi/types.js';

const Scope = { enum: [...allScopes], description: '`admin` operates the tenant, `connector` presentation requests and offers, `resources` the resource API.' };

export const tenancyArea: Area = {
  tags: [{ name: 'tenancy', description: 'The caller\'s tenant and the service\'s state.' }],
  schemas: {
    Scope,
    Tenant: object({
      tenant_id: uuid(),
      name: nullable(string()),
      api_key: object({ id: uuid('The id of the key that authenticated this request.'), scopes: arrayOf(ref.schema('Scope')) }),
    }),
    ProjectionStatus: object({
      checkpoint: string('The `$all` position applied last, `commit/prepare`.'),
      caughtUp: { type: 'boolean' },
      applied: { type: 'integer', minimum: 0, description: 'Events applied since this process started.' },
      commits: { type: 'integer', minimum: 0, description: 'Transactions that applied them.' },
      lastLagMs: nullable({ type: 'number', description: 'From the last applied event\'s append to its application.' }),
      failing: nullable(string('Why projecting is stalled, while it is; it retries from the checkpoint.')),
      quarantine: object({
        total: { type: 'integer', minimum: 0 },
        unacknowledged: { type: 'integer', minimum: 0 },
        entries: arrayOf(
          object({
            projection: string(),
            position: string('The event\'s `$all` position, `commit/prepare`: what `ops projections quarantine ack` takes.'),
            type: string('The event type.'),
            reason: string('Why the projection could not apply it, without the event\'s data.'),
            quarantinedAt: dateTime(),
            acknowledged: { type: 'boolean' },
          }),
          { description: 'Events a projection set aside (stream names left out: any tenant\'s admin key reads this).' },
        ),
      }),
    }),
  },
  management: {
    '/tenant': {
      get: operation({
        operationId: 'getTenant',
        summary: 'The caller\'s tenant and API key',
        tags: ['tenancy'],
        security: apiKey(),
        responses: {
          '200': managementAnswers.answer('The tenant of the key, and the key\'s id and scopes.', { content: json(ref.schema('Tenant')) }),
          ...managementAnswers.problems(401, 500),
        },
      }),
    },
    '/admin/projections': {
      get: operation({
        operationId: 'getProjectionStatus',
        summary: 'Projection runner status of this instance',
        tags: ['tenancy'],
        security: apiKey('admin'),
        responses: {
          '200': managementAnswers.answer('The read models\' position and health.', { content: json(ref.schema('ProjectionStatus')) }),
          ...managementAnswers.problems(401, 403, 500),
        },
      }),
    },
  },
};
