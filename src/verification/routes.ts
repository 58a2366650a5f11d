// HTTP for verification: `POST /oidc4vp` and a DC API session's answer
// (`POST /oidc4vp/{state}/dc-api-response`) on the management listener; the request object and the
// response URI on the public one. Wallet-facing routes answer OAuth-style errors
// (`{error, error_description}`, `Cache-Control: no-store`), never problem bodies.
import Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import type { FlowType } from '../../streams/presentation.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import { readForm, readJson, type FormFields } from '../http/body.js';
import { conflict, HttpError, invalidRequest, invalidValues, notFound } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Logger } from '../log.js';
import { requestIdOf } from '../log.js';
import { logRef } from '../../streams/kernel.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import {
  createPresentation,
  createPresentationBody,
  requestUris,
  validatePresentationBody,
  type CreatedDcApiRequest,
  type ExpiryBounds,
} from './createRequest.js';
import { dcApiRequest } from './dcApiRequest.js';
import { DcApiAnswerBody, receiveDcApiResponse, type DcApiRefusal } from './dcApiResponse.js';
import { fetchRequestObject, REQUEST_OBJECT_TYPE, type Verifier } from './requestObject.js';
import { openSession } from './session.js';
import { parseWalletAnswer, receiveResponse, unavailableReply, type WalletReply } from './response.js';
import type { PresentationVerifier } from './presentedCredentialVerifier.js';
import { oauthErrors } from '../http/oauthError.js';

export interface VerificationDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly verifier: Verifier;
  readonly verify: PresentationVerifier;
  readonly bounds: ExpiryBounds;
  /** DEFAULT_REDIRECT_URI: the same-device redirect of requests created without `redirect_uri`. */
  readonly defaultRedirectUri: string | undefined;
  readonly log: Logger;
  /** The trusted lists a DCQL `etsi_tl` may name now; undefined in static mode. */
  readonly trustListUrls: () => ReadonlySet<string> | undefined;
}

const JSON_LIMIT = 256 * 1024;
/** A response carries every presentation, each an SD-JWT with its disclosures and KB-JWT. */
const RESPONSE_LIMIT = 1024 * 1024;
const FORM_LIMIT = 64 * 1024;

/** A refused DC API answer as a problem: nothing was recorded. */
const dcApiRefusal = (refusal: DcApiRefusal): HttpError => {
  switch (refusal._tag) {
    case 'UnknownSession':
      return new HttpError(notFound('There is no presentation request with this state.'));
    case 'SessionFinished':
      return new HttpError(conflict('This presentation request has already ended (answered, expired or failed); its outcome stands.'));
    case 'SessionExpired':
      return new HttpError(conflict('This presentation request has expired; it ends as EXPIRED.'));
    case 'OtherChannel':
      return new HttpError(conflict('This presentation request was not created for the Digital Credentials API ("flow_type": "dc_api"); its wallet answers at its response URI.'));
    case 'NotAnAnswer':
      return new HttpError(invalidRequest(`The body is not an answer to this request: ${refusal.detail}.`));
  }
};

export const managementRouter = (deps: VerificationDeps): Router => {
  const router = new Router();
  const body = createPresentationBody(deps.bounds);
  /** What the page passes to the browser: in the order of `dc_api_protocols` if given, else the one request. */
  const dcApiRequestFor = (created: CreatedDcApiRequest, expiresAt: Date, asArray: boolean, now: Date) =>
    dcApiRequest(deps.verifier, created.protocols, asArray, {
      kid: created.request.kid,
      nonce: created.request.nonce,
      publicJwk: created.publicJwk,
      ...(created.annexCRecipientKey ? { annexCRecipientKey: created.annexCRecipientKey } : {}),
      dcqlQuery: created.dcqlQuery,
      transactionData: created.transactionData,
      expectedOrigins: created.expectedOrigins,
      expiresAt,
      now,
    });
  router.post('/oidc4vp', requireScope('connector'), async (ctx) => {
    const principal = principalOf(ctx);
    const request = decode(body, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const problems = validatePresentationBody(request, deps.trustListUrls());
    if (problems.length > 0) throw new HttpError(invalidValues(problems));
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(ctx) };
    const now = new Date();
    const created = await createPresentation(deps, principal.tenantId, request, deps.bounds, metadata, now);
    if (isLeft(created)) throw new Error(`presentation not created: ${created.left._tag}`);
    const { state, expiresAt, dcApi } = created.right;
    deps.log.info('presentation requested', { stateRef: logRef(state), tenantId: principal.tenantId, ...(dcApi ? { flowType: 'dc_api' } : {}) });
    ctx.status = 201;
    ctx.body = dcApi
      ? { state, expires_at: expiresAt.toISOString(), dc_api_request: await dcApiRequestFor(dcApi, expiresAt, request.dc_api_protocols !== undefined, now) }
      : { state, ...requestUris(deps.verifier.publicUrl, deps.verifier.clientId, state), expires_at: expiresAt.toISOString() };
  });

  router.post('/oidc4vp/:state/dc-api-response', requireScope('connector'), async (ctx) => {
    const principal = principalOf(ctx);
    const state = ctx.params['state'] ?? '';
    if (!STATE.test(state)) throw dcApiRefusal({ _tag: 'UnknownSession' });
    const answer = decode(DcApiAnswerBody, await readJson(ctx, { limitBytes: RESPONSE_LIMIT }), 'body');
    const metadata = { actor: `apikey:${principal.keyId}`, requestId: requestIdOf(ctx) };
    const outcome = await receiveDcApiResponse(deps, principal.tenantId, state, answer, metadata, new Date());
    if (isLeft(outcome)) throw dcApiRefusal(outcome.left);
    deps.log.info('DC API answer recorded', { stateRef: logRef(state), tenantId: principal.tenantId, status: outcome.right['status'] });
    ctx.status = 200;
    ctx.body = outcome.right;
    ctx.set('Cache-Control', 'no-store');
  });
  return router;
};

// States are 256 random bits in base64url; anything else cannot name a session.
const STATE = /^[A-Za-z0-9_-]{43}$/;

const reply = (ctx: Context, answer: WalletReply): void => {
  ctx.status = answer.status;
  ctx.body = answer.body;
  ctx.set('Cache-Control', 'no-store');
};

const requestObject = (ctx: Context, jwt: string | undefined): void => {
  ctx.status = 200;
  if (jwt !== undefined) ctx.body = jwt;
  ctx.set('Content-Type', `application/${REQUEST_OBJECT_TYPE}`);
  ctx.set('Cache-Control', 'no-store');
};

const badRequest = (description: string): WalletReply => ({ status: 400, body: { error: 'invalid_request', error_description: description } });

/** Body errors (415, 413, 400) as OAuth errors: the wallet reads `error`, not problem details. */
const readWalletForm = async (ctx: Context, limitBytes: number): Promise<FormFields | WalletReply> => {
  try {
    return await readForm(ctx, { limitBytes });
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return { status: err.status, body: { error: 'invalid_request', error_description: err.problem.detail } };
  }
};

const isReply = (v: FormFields | WalletReply): v is WalletReply => typeof v.status === 'number' && typeof v.body === 'object';

const walletMetadata = (ctx: Context): EventMetadata => ({ actor: 'wallet', requestId: requestIdOf(ctx) });

export const publicRouter = (deps: VerificationDeps): Router => {
  const router = new Router();
  // What the routes do not answer themselves (keys unavailable, the unexpected) reaches the wallet as an OAuth `server_error`.
  router.use(oauthErrors(deps.log));

  /** The session and flow type a request URI names, or the reply that refuses it. */
  const requestTarget = (ctx: Context): { state: string; flowType: FlowType } | WalletReply => {
    const state = ctx.params['state'] ?? '';
    const flowType = ctx.query['flow_type'];
    if (!STATE.test(state)) return unavailableReply({ _tag: 'UnknownSession' });
    // A DC API session's request goes to the page in the 201, never by request URI.
    if (flowType !== 'same-device' && flowType !== 'cross-device') return badRequest('flow_type must be same-device or cross-device');
    return { state, flowType };
  };

  const serveRequest = async (ctx: Context, walletNonce: string | undefined): Promise<void> => {
    const target = requestTarget(ctx);
    if ('status' in target) return reply(ctx, target);
    const fetched = await fetchRequestObject(deps, target.state, target.flowType, walletNonce, walletMetadata(ctx), new Date());
    if (isLeft(fetched)) return reply(ctx, unavailableReply(fetched.left));
    requestObject(ctx, fetched.right);
  };

  // The status and headers a GET would get, from a read: a HEAD records no fetch.
  const describeRequest = async (ctx: Context): Promise<void> => {
    const target = requestTarget(ctx);
    if ('status' in target) return reply(ctx, target);
    const opened = await openSession(deps, target.state, new Date(), { channel: 'request_uri' });
    if (isLeft(opened)) return reply(ctx, unavailableReply(opened.left));
    requestObject(ctx, undefined);
  };

  // @koa/router serves HEAD with the GET route's handler.
  router.get('/oidc4vp/:state/request', (ctx) => (ctx.method === 'HEAD' ? describeRequest(ctx) : serveRequest(ctx, undefined)));

  // request_uri_method=post (OpenID4VP 1.0 section 5.10): the wallet may send a nonce to be
  // echoed in the request object; wallet_metadata is accepted and not needed.
  router.post('/oidc4vp/:state/request', async (ctx) => {
    const form = await readWalletForm(ctx, FORM_LIMIT);
    if (isReply(form)) return reply(ctx, form);
    const walletNonce = form['wallet_nonce'];
    if (Array.isArray(walletNonce)) return reply(ctx, badRequest('wallet_nonce appears more than once'));
    await serveRequest(ctx, typeof walletNonce === 'string' ? walletNonce : undefined);
  });

  router.post('/oidc4vp/:state/response', async (ctx) => {
    const state = ctx.params['state'] ?? '';
    if (!STATE.test(state)) return reply(ctx, unavailableReply({ _tag: 'UnknownSession' }));
    const form = await readWalletForm(ctx, RESPONSE_LIMIT);
    if (isReply(form)) return reply(ctx, form);
    const answer = parseWalletAnswer(form);
    if (isLeft(answer)) return reply(ctx, badRequest(answer.left));
    const outcome = await receiveResponse(deps, state, answer.right, walletMetadata(ctx), new Date());
    reply(ctx, outcome);
  });
  return router;
};
