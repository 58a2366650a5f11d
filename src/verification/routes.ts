// HTTP for verification, one route module per step: `POST /oidc4vp` (createRequest/) and a DC API
// session's answer (dcApi/) on the management listener, answering problem+json; the request
// object (requestObject/) and the response URI (response/) on the public one, answering
// OAuth-style errors (`{error, error_description}`, `Cache-Control: no-store`), never problem
// bodies. Every refusal goes through the feature's one table (errors.ts).
import Router from '@koa/router';
import type { Logger } from '../log.js';
import { oauthErrors } from '../http/oauthError.js';
import { createRequestRoute } from './createRequest/route.js';
import type { CreateRequestDeps } from './createRequest/createRequest.js';
import { dcApiRoute } from './dcApi/route.js';
import type { DcApiResponseDeps } from './dcApi/dcApiResponse.js';
import { requestObjectRoute } from './requestObject/route.js';
import type { RequestObjectDeps } from './requestObject/requestObject.js';
import { responseRoute } from './response/route.js';
import type { ResponseDeps } from './response/response.js';

/** The ports the steps use, together: each step's route takes its own part. */
export type VerificationDeps = CreateRequestDeps & DcApiResponseDeps & RequestObjectDeps & ResponseDeps & { readonly log: Logger };

export const managementRouter = (deps: VerificationDeps): Router => {
  const router = new Router();
  createRequestRoute(router, deps);
  dcApiRoute(router, deps);
  return router;
};

export const publicRouter = (deps: VerificationDeps): Router => {
  const router = new Router();
  // What the routes do not answer themselves (keys unavailable, the unexpected) reaches the wallet as an OAuth `server_error`.
  router.use(oauthErrors(deps.log));
  requestObjectRoute(router, deps);
  responseRoute(router, deps);
  return router;
};
