// `/settings`: the tenant's settings, a singleton resource (src/resources/singletons.ts), whose
// rules are replaceSettings.ts: the route reads the body, checks it before the Idempotency-Key is
// claimed, and replaces the settings on the revision If-Match names.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Json } from '../eventstore/port.js';
import { readJson } from '../http/body.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { problemOf } from './problems.js';
import { checkSettings, replaceSettings, settingsKind, type GivenSettings } from './replaceSettings.js';
import { singletonRoutes } from './singletons.js';

export const settingsRoutes = (router: Router, deps: ResourcesContext, kek: Buffer): void => {
  singletonRoutes(
    router,
    settingsKind,
    deps,
    async (ctx) => {
      const checked = checkSettings(await readJson(ctx, { limitBytes: JSON_LIMIT }), deps.config);
      if (isLeft(checked)) throw problemOf(checked.left);
      return checked.right as Json;
    },
    async (request, current, tenantId) => replaceSettings(kek, tenantId, request as GivenSettings, current),
  );
};
