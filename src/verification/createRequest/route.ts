// `POST /oidc4vp` on the management listener: the body parsed by its schema, the use case called,
// a refusal answered through the feature's table (errors.ts), the 201 shaped.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readJson } from '../../http/body.js';
import { decode } from '../../http/validate.js';
import type { Logger } from '../../log.js';
import { requestIdOf } from '../../log.js';
import { logRef } from '../../../streams/kernel.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';
import { problemFor } from '../errors.js';
import { createPresentationBody } from './body.js';
import { initTransaction, type CreateRequestDeps } from './createRequest.js';

const JSON_LIMIT = 256 * 1024;

export const createRequestRoute = (router: Router, deps: CreateRequestDeps & { readonly log: Logger }): void => {
  const body = createPresentationBody(deps.bounds);
  router.post('/oidc4vp', requireScope('connector'), async (ctx) => {
    const principal = principalOf(ctx);
    const request = decode(body, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(ctx) };
    const created = await initTransaction(deps, { tenantId: principal.tenantId, body: request, metadata, now: new Date() });
    if (isLeft(created)) throw problemFor(created.left);
    const { state, expiresAt, requestUris, dcApiRequest } = created.right;
    deps.log.info('presentation requested', { stateRef: logRef(state), tenantId: principal.tenantId, ...(dcApiRequest ? { flowType: 'dc_api' } : {}) });
    ctx.status = 201;
    ctx.body = dcApiRequest ? { state, expires_at: expiresAt.toISOString(), dc_api_request: dcApiRequest } : { state, ...requestUris, expires_at: expiresAt.toISOString() };
  });
};
