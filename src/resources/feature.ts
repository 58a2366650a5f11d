// The platform resource API (spec/resource-api.md) on the management listener.
import Router from '@koa/router';
import type { Feature, ServiceContext } from '../feature.js';
import { apiKeyRoutes } from './apiKeys.js';
import type { ResourcesContext } from './context.js';
import { sendReply } from './reply.js';

export const resourcesFeature = (service: ServiceContext): Feature => {
  const deps: ResourcesContext = {
    ...service,
    now: () => new Date(),
    idempotent: async (ctx, _request, execute) => sendReply(ctx, await execute()),
  };
  const router = new Router();
  apiKeyRoutes(router, deps);
  return { name: 'resources', managementRouters: [router] };
};
