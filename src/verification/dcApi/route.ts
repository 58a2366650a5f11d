// A DC API session's answer on the management listener: `POST /oidc4vp/{state}/dc-api-response`,
// the body parsed by its schema, the use case called, a refusal answered through the feature's
// table (errors.ts), the Presented Credentials Event returned.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import { readJson } from '../../http/body.js';
import { decode } from '../../http/validate.js';
import { requestIdOf } from '../../log.js';
import { logRef } from '../../../streams/kernel.js';
import { principalOf, requireScope } from '../../tenancy/authenticate.js';
import { problemFor } from '../errors.js';
import { STATE } from '../walletRoute.js';
import { DcApiAnswerBody, postDcApiResponse, type DcApiResponseDeps } from './dcApiResponse.js';

/** An answer carries every presentation, as a wallet's response does. */
const RESPONSE_LIMIT = 1024 * 1024;

export const dcApiRoute = (router: Router, deps: DcApiResponseDeps): void => {
  router.post('/oidc4vp/:state/dc-api-response', requireScope('connector'), async (ctx) => {
    const principal = principalOf(ctx);
    const state = ctx.params['state'] ?? '';
    if (!STATE.test(state)) throw problemFor({ _tag: 'UnknownSession' });
    const body = decode(DcApiAnswerBody, await readJson(ctx, { limitBytes: RESPONSE_LIMIT }), 'body');
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(ctx) };
    const outcome = await postDcApiResponse(deps, { tenantId: principal.tenantId, state, body, metadata, now: new Date() });
    if (isLeft(outcome)) throw problemFor(outcome.left);
    deps.log.info('DC API answer recorded', { stateRef: logRef(state), tenantId: principal.tenantId, status: outcome.right['status'] });
    ctx.status = 200;
    ctx.body = outcome.right;
    ctx.set('Cache-Control', 'no-store');
  });
};
