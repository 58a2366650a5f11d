// The request URI on the public listener: `GET` (and `HEAD`) or, with `request_uri_method=post`
// (OpenID4VP 1.0 section 5.10), `POST /oidc4vp/{state}/request?flow_type=...`. Refusals are OAuth
// errors through the feature's table (errors.ts).
import type Router from '@koa/router';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FlowType } from '../../../streams/presentation.js';
import { REQUEST_OBJECT_TYPE } from '../authorizationRequest.js';
import { oauthErrorFor, type WalletError } from '../errors.js';
import { readWalletForm, reply, STATE, walletMetadata } from '../walletRoute.js';
import { checkRequestObject, getRequestObject, type RequestObjectDeps } from './requestObject.js';

const FORM_LIMIT = 64 * 1024;

const requestObject = (ctx: Context, jwt: string | undefined): void => {
  ctx.status = 200;
  if (jwt !== undefined) ctx.body = jwt;
  ctx.set('Content-Type', `application/${REQUEST_OBJECT_TYPE}`);
  ctx.set('Cache-Control', 'no-store');
};

/** The session and flow type a request URI names, or why it names none. */
const requestTarget = (ctx: Context): Either<WalletError, { state: string; flowType: FlowType }> => {
  const state = ctx.params['state'] ?? '';
  const flowType = ctx.query['flow_type'];
  if (!STATE.test(state)) return left({ _tag: 'UnknownSession' });
  // A DC API session's request goes to the page in the 201, never by request URI.
  if (flowType !== 'same-device' && flowType !== 'cross-device') return left({ _tag: 'InvalidRequest', detail: 'flow_type must be same-device or cross-device' });
  return right({ state, flowType });
};

export const requestObjectRoute = (router: Router, deps: RequestObjectDeps): void => {
  const serveRequest = async (ctx: Context, walletNonce: string | undefined): Promise<void> => {
    const target = requestTarget(ctx);
    if (isLeft(target)) return reply(ctx, oauthErrorFor(target.left));
    const fetched = await getRequestObject(deps, { ...target.right, walletNonce, metadata: walletMetadata(ctx), now: new Date() });
    if (isLeft(fetched)) return reply(ctx, oauthErrorFor(fetched.left));
    requestObject(ctx, fetched.right);
  };

  // The status and headers a GET would get, from a read: a HEAD records no fetch.
  const describeRequest = async (ctx: Context): Promise<void> => {
    const target = requestTarget(ctx);
    if (isLeft(target)) return reply(ctx, oauthErrorFor(target.left));
    const checked = await checkRequestObject(deps, target.right.state, new Date());
    if (isLeft(checked)) return reply(ctx, oauthErrorFor(checked.left));
    requestObject(ctx, undefined);
  };

  // @koa/router serves HEAD with the GET route's handler.
  router.get('/oidc4vp/:state/request', (ctx) => (ctx.method === 'HEAD' ? describeRequest(ctx) : serveRequest(ctx, undefined)));

  // request_uri_method=post: the wallet may send a nonce to be echoed in the request object;
  // wallet_metadata is accepted and not needed.
  router.post('/oidc4vp/:state/request', async (ctx) => {
    const form = await readWalletForm(ctx, FORM_LIMIT);
    if (isLeft(form)) return reply(ctx, oauthErrorFor(form.left));
    const walletNonce = form.right['wallet_nonce'];
    if (Array.isArray(walletNonce)) return reply(ctx, oauthErrorFor({ _tag: 'InvalidRequest', detail: 'wallet_nonce appears more than once' }));
    await serveRequest(ctx, typeof walletNonce === 'string' ? walletNonce : undefined);
  });
};
