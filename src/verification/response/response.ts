// Step 3 (the EUDI verifier's postWalletResponse): the wallet posts to the response URI (response
// mode `direct_post.jwt`): either `response=<JWE>` encrypted to one of the session's request keys,
// or a plain error response. Whatever the answer, the session ends with exactly one terminal
// event, appended at the revision read; if the expiry scheduler got there first, the wallet is
// told the session ended, and an answer to a session past its expiry ends it as EXPIRED.
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import { presentationStream, type FetchedRequest, type OutcomeCommand, type PresentationTerminalEvent } from '../../../streams/presentation.js';
import type { DataKey, DataKeys } from '../../crypto/dataKeys.js';
import type { EventMetadata } from '../../eventstore/handle.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Logger } from '../../log.js';
import { streamRef } from '../../../streams/kernel.js';
import { responseUri } from '../authorizationRequest.js';
import { ERROR_CODE, openResponse } from '../authorizationResponse.js';
import { failProcessing, failVerification, fulfil, reject, type Answer } from '../outcome.js';
import type { PresentationVerifier } from '../presentedCredentialVerifier.js';
import type { SealedRequest } from '../sealedRequest.js';
import { destroyDataKeyUnlessNeeded, expirePresentation, finish } from '../sessionEnd.js';
import { openSession, type SessionUnavailable } from '../session.js';
import { sessionClientId, type Verifiers } from '../verifiers.js';
import { verifyVpToken } from '../vpToken.js';
import type { WalletAnswer } from './walletAnswer.js';

/** What judging and recording a wallet's answer uses. */
export interface ResponseDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  /** The deployment's: the response URI's base, and the client id of sessions recorded without their own. */
  readonly verifiers: Pick<Verifiers, 'deployment'>;
  readonly verify: PresentationVerifier;
  readonly log: Logger;
}

export interface WalletResponseInput {
  readonly state: string;
  readonly answer: WalletAnswer;
  readonly metadata: EventMetadata;
  readonly now: Date;
}

/** The terminal event the answer recorded, and the request it answered (whose redirect the wallet may be given). */
export interface RecordedOutcome {
  readonly event: PresentationTerminalEvent;
  readonly request: SealedRequest;
}

/** The outcome the answer leads to; no I/O but decryption and credential checks. */
const judge = async (
  deps: ResponseDeps,
  base: Answer,
  answer: WalletAnswer,
  loaded: { tenantId: string; fetched: readonly FetchedRequest[]; key: DataKey; request: SealedRequest; clientId: string },
): Promise<OutcomeCommand> => {
  if (answer.kind === 'error') {
    return answer.state === base.state ? reject(base, answer.error) : failProcessing(base, 'the error response does not carry this request\'s state');
  }
  const decrypted = await openResponse(answer.jwe, loaded.fetched, loaded.key);
  if (typeof decrypted === 'string') return failProcessing(base, decrypted);
  const { payload } = decrypted;
  if (payload['state'] !== base.state) return failProcessing(base, 'the response does not carry this request\'s state');
  const error = payload['error'];
  if (typeof error === 'string' && ERROR_CODE.test(error)) return reject(base, error);
  if (!('vp_token' in payload)) return failProcessing(base, 'the response has neither vp_token nor error');
  const { kid } = decrypted.request;
  const verified = await verifyVpToken(
    payload['vp_token'],
    loaded.request,
    {
      audience: loaded.clientId,
      nonce: decrypted.request.nonce,
      handover: {
        clientId: loaded.clientId,
        nonce: decrypted.request.nonce,
        jwkThumbprint: decrypted.jwkThumbprint,
        responseUri: responseUri(deps.verifiers.deployment.publicUrl, base.state),
      },
      now: base.at,
      tenantId: loaded.tenantId,
    },
    deps.verify,
  );
  return isLeft(verified) ? failVerification(base, kid, verified.left) : fulfil(base, kid, verified.right, loaded.key);
};

/** Records the outcome of the wallet's answer, or says why the session takes none. */
export const postWalletResponse = async (deps: ResponseDeps, input: WalletResponseInput): Promise<Either<SessionUnavailable, RecordedOutcome>> => {
  const { state, answer, metadata, now } = input;
  const opened = await openSession(deps, state, now, { channel: 'request_uri' });
  if (isLeft(opened)) {
    if (opened.left._tag === 'SessionExpired') await expirePresentation(deps, state, metadata, now);
    return opened;
  }
  const { session, key, request } = opened.right;
  const base: Answer = { state, at: now, channel: 'request_uri' };
  let outcome: OutcomeCommand;
  try {
    outcome = await judge(deps, base, answer, { tenantId: session.tenantId, fetched: session.fetched, key, request, clientId: sessionClientId(deps.verifiers, session) });
  } catch (err) {
    deps.log.error('presentation response processing failed', { err });
    outcome = failProcessing(base, 'internal error while processing the response');
  }
  const recorded = await finish(deps.store, outcome, metadata, opened.right.loaded);
  if (isLeft(recorded)) return recorded;
  if (recorded.right === undefined) throw new Error(`${streamRef(presentationStream(state))}: an outcome decided no event`);
  await destroyDataKeyUnlessNeeded(deps.dataKeys, recorded.right);
  return right({ event: recorded.right, request });
};
