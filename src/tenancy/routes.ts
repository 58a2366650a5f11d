// Management routes about the caller's own tenant and the service's state.
import Router from '@koa/router';
import { findTenant } from '../../projections/tenants.js';
import type { Feature, ServiceContext } from '../featureContract.js';
import type { ReadModels } from '../readside/readModels.js';
import { listQuarantine } from '../readside/quarantine.js';
import { principalOf, requireScope } from './authenticate.js';

export const tenancyFeature = ({ runner }: Pick<ServiceContext, 'runner'>): Feature => ({
  name: 'tenancy',
  managementRouters: [tenancyRouter(runner)],
});

const tenancyRouter = (runner: ReadModels): Router => {
  const router = new Router();
  router.get('/tenant', (ctx) => {
    const principal = principalOf(ctx);
    const tenant = findTenant(runner.db, principal.tenantId);
    ctx.body = {
      tenant_id: principal.tenantId,
      name: tenant?.name ?? null,
      api_key: { id: principal.keyId, scopes: principal.scopes },
    };
  });
  router.get('/admin/projections', requireScope('admin'), (ctx) => {
    const status = runner.status();
    // Without the stream: the runner serves every tenant, and a stream name can hold another's identifiers.
    const entries = listQuarantine(runner.db).map(({ projection, position, type, reason, quarantinedAt, acknowledged }) => ({
      projection, position, type, reason, quarantinedAt, acknowledged,
    }));
    ctx.body = { ...status, quarantine: { ...status.quarantine, entries } };
  });
  return router;
};
