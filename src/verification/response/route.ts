// The response URI on the public listener: `POST /oidc4vp/{state}/response`, the wallet's form
// parsed (walletAnswer.ts), the use case called, and the wallet answered: a refusal through the
// feature's table (errors.ts), a recorded outcome by `replyFor`.
import type Router from '@koa/router';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { PresentationTerminalEvent } from '../../../streams/presentation.js';
import type { EventMetadata } from '../../eventstore/handle.js';
import { oauthErrorFor, type WalletReply } from '../errors.js';
import type { SealedRequest } from '../sealedRequest.js';
import { readWalletForm, reply, STATE, walletMetadata } from '../walletRoute.js';
import { postWalletResponse, type ResponseDeps } from './response.js';
import { parseWalletAnswer, type WalletAnswer } from './walletAnswer.js';

/** A response carries every presentation, each an SD-JWT with its disclosures and KB-JWT. */
const RESPONSE_LIMIT = 1024 * 1024;

const redirectTo = (redirectUri: string | null, responseCode: string | null): WalletReply => {
  if (redirectUri === null || responseCode === null) return { status: 200, body: {} };
  const url = new URL(redirectUri);
  url.searchParams.set('response_code', responseCode);
  return { status: 200, body: { redirect_uri: url.toString() } };
};

/**
 * What the wallet is told of any failed verification, whatever failed. The reason goes to the
 * integrator's callback (`errorDetails`) only: it can say what a URL the wallet's credential
 * named (a status list, a CRL) answered, and the wallet must learn nothing of where that led.
 */
export const VERIFICATION_FAILED_DESCRIPTION = 'The presentation failed verification.';

/** What the wallet is told once the event is recorded. */
const replyFor = (event: PresentationTerminalEvent, request: SealedRequest): WalletReply => {
  switch (event.type) {
    case 'PresentationFulfilled':
      return redirectTo(request.redirectUri, event.data.responseCode);
    case 'PresentationRejected':
      return { status: 200, body: {} };
    case 'PresentationVerificationFailed':
      return event.data.responseCode !== null
        ? redirectTo(request.redirectUri, event.data.responseCode)
        : oauthErrorFor({ _tag: 'InvalidRequest', detail: VERIFICATION_FAILED_DESCRIPTION });
    case 'PresentationProcessingFailed':
      return oauthErrorFor({ _tag: 'InvalidRequest', detail: `The response could not be processed: ${event.data.errorDetails}` });
    case 'PresentationExpired':
      return oauthErrorFor({ _tag: 'SessionExpired' });
  }
};

/** Records the outcome of the wallet's answer and says what to reply. */
export const receiveResponse = async (deps: ResponseDeps, state: string, answer: WalletAnswer, metadata: EventMetadata, now: Date): Promise<WalletReply> => {
  const recorded = await postWalletResponse(deps, { state, answer, metadata, now });
  return isLeft(recorded) ? oauthErrorFor(recorded.left) : replyFor(recorded.right.event, recorded.right.request);
};

export const responseRoute = (router: Router, deps: ResponseDeps): void => {
  router.post('/oidc4vp/:state/response', async (ctx) => {
    const state = ctx.params['state'] ?? '';
    if (!STATE.test(state)) return reply(ctx, oauthErrorFor({ _tag: 'UnknownSession' }));
    const form = await readWalletForm(ctx, RESPONSE_LIMIT);
    if (isLeft(form)) return reply(ctx, oauthErrorFor(form.left));
    const answer = parseWalletAnswer(form.right);
    if (isLeft(answer)) return reply(ctx, oauthErrorFor({ _tag: 'InvalidRequest', detail: answer.left }));
    reply(ctx, await receiveResponse(deps, state, answer.right, walletMetadata(ctx), new Date()));
  });
};
