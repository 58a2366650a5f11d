// Step 2 (the EUDI verifier's getRequestObject): the wallet fetches the signed authorization
// request (OpenID4VP 1.0 section 5, HAIP).
// The first fetch of a flow type records a `PresentationRequestFetched` event with a fresh nonce
// and a fresh ECDH-ES key for this request only, so any instance can decrypt the answer, also
// after a restart. Every later fetch of that flow type is signed afresh (with its own
// `wallet_nonce`) from the recorded nonce and key: the request URI names one Authorization
// Request, and the nonce belongs to the Authorization Request (section 5.2), not to a download
// of it. So re-fetching, by the wallet or by anyone who saw the QR code, costs no append and no
// key generation and uses up nothing the wallet needs. It is signed by the session's verifier
// (verifiers.ts): the one whose client id was recorded at creation.
import { randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { presentation, presentationStream, recordedFor, type Command, type FetchedRequest, type FlowType } from '../../../streams/presentation.js';
import { purposes } from '../../../streams/presentationSealed.js';
import { openFor, type DataKeys } from '../../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import type { EventStore, Json } from '../../eventstore/port.js';
import { clientMetadata, responseUri, signRequestParameters, type Verifier } from '../authorizationRequest.js';
import { newRequest } from '../requestKey.js';
import { streamRef } from '../../../streams/kernel.js';
import { openSession, type LoadedSession, type SessionUnavailable } from '../session.js';
import type { VerifierKeyReplaced, Verifiers } from '../verifiers.js';

/** Lost races decided again: two first fetches of a flow type append at the same revision. */
const RACE_RETRIES = 4;

/**
 * The session's request for `flowType`, recorded by this call if it is the first. The loser of
 * two racing first fetches decides again on the winner's stream and uses its request.
 */
const requestFor = async (
  store: EventStore,
  state: string,
  flowType: FlowType,
  opened: LoadedSession,
  metadata: EventMetadata,
  now: Date,
): Promise<Either<SessionUnavailable, FetchedRequest>> => {
  const recorded = recordedFor(opened.session.fetched, flowType);
  if (recorded) return right(recorded);
  const fetch: Command = { type: 'FetchRequestObject', data: { state, request: newRequest(flowType, opened.key).request, at: now.toISOString() } };
  const result = await handleCommand(store, presentation, presentationStream(state), fetch, {
    commandId: randomUUID(),
    metadata,
    loaded: opened.loaded,
    retries: RACE_RETRIES,
  });
  if (isLeft(result)) {
    const failed = result.left;
    switch (failed.kind) {
      case 'store':
        if (failed.error._tag === 'WrongExpectedRevision') throw new Error(`${streamRef(presentationStream(state))}: request fetch kept losing to concurrent writers`);
        return left({ _tag: 'UnknownSession' });
      case 'domain':
        if (failed.error._tag === 'UnknownRequestKey') throw new Error('a request fetch decided as an outcome');
        return left(failed.error._tag === 'PresentationExists' ? { _tag: 'UnknownSession' } : failed.error);
    }
  }
  const session = result.right.state;
  const request = session.status === 'none' ? undefined : recordedFor(session.fetched, flowType);
  if (!request) throw new Error(`${streamRef(presentationStream(state))}: no request recorded for the fetch`);
  return right(request);
};

/** What serving the request object uses: the store, the data keys and who each session's verifier is. */
export interface RequestObjectDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly verifiers: Pick<Verifiers, 'forSession'>;
}

export interface RequestObjectInput {
  readonly state: string;
  readonly flowType: FlowType;
  /** `request_uri_method=post` (OpenID4VP 1.0 section 5.10): the nonce the wallet sent, echoed in the request object. */
  readonly walletNonce: string | undefined;
  readonly metadata: EventMetadata;
  readonly now: Date;
}

/** The signed request object for `flowType` (the EUDI verifier's getRequestObject), echoing `walletNonce` when the wallet sent one. */
export const getRequestObject = async (deps: RequestObjectDeps, input: RequestObjectInput): Promise<Either<SessionUnavailable | VerifierKeyReplaced, string>> => {
  const { state, flowType, walletNonce, metadata, now } = input;
  const opened = await openSession(deps, state, now, { channel: 'request_uri' });
  if (isLeft(opened)) return opened;
  // Before anything is recorded: a session its verifier can no longer sign for takes no fetch.
  const verifier = await deps.verifiers.forSession(opened.right.session);
  if (isLeft(verifier)) return verifier;
  const request = await requestFor(deps.store, state, flowType, opened.right, metadata, now);
  if (isLeft(request)) return request;
  const { kid, nonce, responseKey } = request.right;
  const { kty, crv, x, y } = openFor(opened.right.key, purposes.responseKey(kid), responseKey);
  return right(
    await signRequestObject(verifier.right, {
      state,
      nonce,
      walletNonce,
      kid,
      publicJwk: { kty, crv, x, y },
      dcqlQuery: opened.right.request.dcqlQuery as unknown as Json,
      transactionData: opened.right.request.transactionData,
      expiresAt: opened.right.expiresAt,
      now,
    }),
  );
};

/**
 * Whether the request object can be served now, without recording anything: what a HEAD of the
 * request URI answers.
 */
export const checkRequestObject = async (deps: RequestObjectDeps, state: string, now: Date): Promise<Either<SessionUnavailable | VerifierKeyReplaced, void>> => {
  const opened = await openSession(deps, state, now, { channel: 'request_uri' });
  if (isLeft(opened)) return opened;
  const verifier = await deps.verifiers.forSession(opened.right.session);
  return isLeft(verifier) ? verifier : right(undefined);
};

interface RequestContent {
  readonly state: string;
  readonly nonce: string;
  readonly walletNonce: string | undefined;
  readonly kid: string;
  readonly publicJwk: JWK;
  readonly dcqlQuery: Json;
  readonly transactionData: readonly string[];
  readonly expiresAt: Date;
  readonly now: Date;
}

/** The request object a wallet fetches by request URI (response mode `direct_post.jwt`). */
export const signRequestObject = (verifier: Verifier, content: RequestContent): Promise<string> =>
  signRequestParameters(
    verifier,
    {
      client_id: verifier.clientId,
      response_type: 'vp_token',
      response_mode: 'direct_post.jwt',
      response_uri: responseUri(verifier.publicUrl, content.state),
      nonce: content.nonce,
      state: content.state,
      dcql_query: content.dcqlQuery,
      ...(content.transactionData.length > 0 ? { transaction_data: content.transactionData } : {}),
      ...(content.walletNonce !== undefined ? { wallet_nonce: content.walletNonce } : {}),
      client_metadata: clientMetadata(content.kid, content.publicJwk),
    },
    content,
  );

