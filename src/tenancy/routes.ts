// Management routes about the caller's own tenant and the service's state.
import Router from '@koa/router';
import { findTenant } from '../../projections/tenants.js';
import type { Feature, ServiceContext } from '../feature.js';
import type { ProjectionRunner } from '../projection-runner.js';
import { principalOf, requireScope } from './authenticate.js';

export const tenancyFeature = ({ runner }: ServiceContext): Feature => ({
  name: 'tenancy',
  managementRouters: [tenancyRouter(runner)],
});

const tenancyRouter = (runner: ProjectionRunner): Router => {
  const router = new Router();
  router.get('/tenant', async (ctx) => {
    const principal = principalOf(ctx);
    const tenant = await findTenant(runner.db, principal.tenantId);
    ctx.body = {
      tenant_id: principal.tenantId,
      name: tenant?.name ?? null,
      api_key: { id: principal.keyId, scopes: principal.scopes },
    };
  });
  router.get('/admin/projections', requireScope('admin'), (ctx) => {
    ctx.body = runner.status();
  });
  return router;
};
