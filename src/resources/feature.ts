// The platform resource API (spec/resource-api.md) on the management listener.
import Router from '@koa/router';
import type { Feature, ServiceContext } from '../feature.js';
import { apiKeyRoutes } from './apiKeys.js';
import type { ResourcesContext } from './context.js';
import { idempotentWrites } from './idempotency.js';

export const resourcesFeature = (service: ServiceContext): Feature => {
  const now = (): Date => new Date();
  const deps: ResourcesContext = { ...service, now, idempotent: idempotentWrites(service, now) };
  const router = new Router();
  apiKeyRoutes(router, deps);
  return { name: 'resources', managementRouters: [router] };
};
