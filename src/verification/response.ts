// Step 3: the wallet posts to the response URI (response mode `direct_post.jwt`): either
// `response=<JWE>` encrypted to one of the session's request keys, or a plain error response.
// Whatever the answer, the session ends with exactly one terminal event, appended at the
// revision read; if the expiry scheduler got there first, the wallet is told the session ended.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint, compactDecrypt, decodeProtectedHeader, type JWK } from 'jose';
import { createPrivateKey, randomUUID } from 'node:crypto';
import {
  presentation,
  presentationStream,
  purposes,
  type Command,
  type FetchedRequest,
  type OutcomeCommand,
  type PresentationState,
  type PresentationTerminalEvent,
} from '../../streams/presentation.js';
import type { DataKey, DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import type { FormFields } from '../http/body.js';
import { parseBoundedJson } from '../http/boundedJson.js';
import type { Logger } from '../log.js';
import { isRecord, streamRef } from '../../streams/kernel.js';
import type { SealedRequest } from './sealedRequest.js';
import { failProcessing, failVerification, fulfil, reject, type Answer } from './outcome.js';
import { RESPONSE_ENCRYPTION, responseUri, type Verifier } from './requestObject.js';
import { openSession, type SessionUnavailable } from './session.js';
import type { PresentationVerifier } from './presentedCredentialVerifier.js';
import { verifyVpToken } from './vpToken.js';

export type WalletAnswer =
  | { readonly kind: 'response'; readonly jwe: string }
  | { readonly kind: 'error'; readonly error: string; readonly state: string | undefined };

// RFC 6749 section 5.2: error codes are printable ASCII without `"` and `\`.
export const ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

const single = (fields: FormFields, name: string): string | undefined => {
  const value = fields[name];
  return typeof value === 'string' ? value : undefined;
};

/** The wallet's form as an answer, or why it is not one (a 400 that changes nothing). */
export const parseWalletAnswer = (fields: FormFields): Either<string, WalletAnswer> => {
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string') return left(`parameter ${name} appears more than once`);
  }
  const response = single(fields, 'response');
  const error = single(fields, 'error');
  if (response !== undefined && error === undefined) return right({ kind: 'response', jwe: response });
  if (error !== undefined && response === undefined) {
    if (!ERROR_CODE.test(error)) return left('error is not an OAuth 2.0 error code');
    return right({ kind: 'error', error, state: single(fields, 'state') });
  }
  return left('expected either response (direct_post.jwt) or error');
};

export interface WalletReply {
  readonly status: number;
  readonly body: Readonly<Record<string, string>>;
}

const oauthError = (status: number, description: string): WalletReply => ({
  status,
  body: { error: 'invalid_request', error_description: description },
});

export const unavailableReply = (problem: SessionUnavailable): WalletReply => {
  switch (problem._tag) {
    case 'UnknownSession':
      return oauthError(404, 'There is no presentation request with this state.');
    case 'SessionFinished':
      return oauthError(400, 'This presentation request has ended; a new one is needed.');
    case 'SessionExpired':
      return oauthError(400, 'This presentation request has expired; a new one is needed.');
    case 'OtherChannel':
      return oauthError(400, 'This presentation request is answered over the Digital Credentials API, not by a request URI.');
  }
};

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
        : oauthError(400, VERIFICATION_FAILED_DESCRIPTION);
    case 'PresentationProcessingFailed':
      return oauthError(400, `The response could not be processed: ${event.data.errorDetails}`);
    case 'PresentationExpired':
      return unavailableReply({ _tag: 'SessionExpired' });
  }
};

export interface ResponseDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly verifier: Verifier;
  readonly verify: PresentationVerifier;
  readonly log: Logger;
}


const decryptFor = async (
  jwe: string,
  fetched: readonly FetchedRequest[],
  key: DataKey,
): Promise<{ request: FetchedRequest; plaintext: Uint8Array; jwkThumbprint: Uint8Array } | string> => {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(jwe).kid;
  } catch {
    return 'the response is not a compact JWE';
  }
  // Wallets name the request key in `kid` (OpenID4VP 1.0 section 8.3); without it, try each.
  const candidates = kid === undefined ? fetched : fetched.filter((f) => f.kid === kid);
  if (candidates.length === 0) return 'the response is encrypted to a key this request never offered';
  for (const request of candidates) {
    const privateJwk = key.open(request.responseKey, purposes.responseKey(request.kid));
    try {
      const { plaintext } = await compactDecrypt(jwe, createPrivateKey({ key: privateJwk as never, format: 'jwk' }), {
        keyManagementAlgorithms: [RESPONSE_ENCRYPTION.alg],
        contentEncryptionAlgorithms: [...RESPONSE_ENCRYPTION.enc],
      });
      // The key the wallet encrypted to is part of an mdoc's SessionTranscript (OpenID4VP 1.0, B.2.6.1).
      const { kty, crv, x, y } = privateJwk as JWK;
      const jwkThumbprint = Buffer.from(await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256'), 'base64url');
      return { request, plaintext, jwkThumbprint };
    } catch {
      // Another candidate may hold the key.
    }
  }
  return 'the response could not be decrypted with the request key';
};

/** A decrypted Authorization Response, and the request and key it answered. */
export interface OpenedResponse {
  readonly request: FetchedRequest;
  readonly payload: Readonly<Record<string, unknown>>;
  /** RFC 7638 thumbprint of the key it was encrypted to. */
  readonly jwkThumbprint: Uint8Array;
}

/** The JWE decrypted with one of `fetched`'s keys, as a JSON object; else why not (PROCESSING_ERROR). */
export const openResponse = async (jwe: string, fetched: readonly FetchedRequest[], key: DataKey): Promise<OpenedResponse | string> => {
  const decrypted = await decryptFor(jwe, fetched, key);
  if (typeof decrypted === 'string') return decrypted;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(decrypted.plaintext);
  } catch {
    return 'the decrypted response is not UTF-8';
  }
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return `the decrypted response is ${parsed.reason}`;
  if (!isRecord(parsed.value)) return 'the decrypted response is not a JSON object';
  return { request: decrypted.request, payload: parsed.value, jwkThumbprint: decrypted.jwkThumbprint };
};

/** The outcome the answer leads to; no I/O but decryption and credential checks. */
const judge = async (
  deps: ResponseDeps,
  base: Answer,
  answer: WalletAnswer,
  loaded: { fetched: readonly FetchedRequest[]; key: DataKey; request: SealedRequest },
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
      audience: deps.verifier.clientId,
      nonce: decrypted.request.nonce,
      handover: {
        clientId: deps.verifier.clientId,
        nonce: decrypted.request.nonce,
        jwkThumbprint: decrypted.jwkThumbprint,
        responseUri: responseUri(deps.verifier.publicUrl, base.state),
      },
      now: base.at,
    },
    deps.verify,
  );
  return isLeft(verified) ? failVerification(base, kid, verified.left) : fulfil(base, kid, verified.right, loaded.key);
};

/** Records the outcome of the wallet's answer and says what to reply. */
export const receiveResponse = async (
  deps: ResponseDeps,
  state: string,
  answer: WalletAnswer,
  metadata: EventMetadata,
  now: Date,
): Promise<WalletReply> => {
  const opened = await openSession(deps, state, now, { channel: 'request_uri' });
  if (isLeft(opened)) {
    if (opened.left._tag === 'SessionExpired') await expirePresentation(deps, state, metadata, now);
    return unavailableReply(opened.left);
  }
  const { session, key, request } = opened.right;
  const base: Answer = { state, at: now, channel: 'request_uri' };
  let outcome: OutcomeCommand;
  try {
    outcome = await judge(deps, base, answer, { fetched: session.fetched, key, request });
  } catch (err) {
    deps.log.error('presentation response processing failed', { err });
    outcome = failProcessing(base, 'internal error while processing the response');
  }
  const recorded = await finish(deps.store, outcome, metadata, opened.right.loaded);
  if (isLeft(recorded)) return unavailableReply(recorded.left);
  if (recorded.right === undefined) throw new Error(`${streamRef(presentationStream(state))}: an outcome decided no event`);
  await destroyDataKeyUnlessNeeded(deps.dataKeys, recorded.right);
  return replyFor(recorded.right, request);
};

/**
 * Destroys the session's data key at once when the outcome holds nothing sealed with it; a
 * FULFILLED session's key lives until the callback subscriber has delivered the presented credentials.
 */
export const destroyDataKeyUnlessNeeded = async (dataKeys: DataKeys, event: PresentationTerminalEvent): Promise<void> => {
  if (event.type !== 'PresentationFulfilled') await dataKeys.destroy(event.data.state);
};

/** Lost races decided again on the stream as it now is: the outcome stays right whoever got in first. */
const RACE_RETRIES = 4;

/**
 * Records `command` (an outcome, or the time-out) on the session's stream and returns the
 * terminal event it decided, if any: `PresentationExpired` in place of an outcome that came too late.
 */
export const finish = async (
  store: EventStore,
  command: Extract<Command, OutcomeCommand | { type: 'Expire' }>,
  metadata: EventMetadata,
  loaded?: Loaded<PresentationState>,
): Promise<Either<SessionUnavailable, PresentationTerminalEvent | undefined>> => {
  const stream = presentationStream(command.data.state);
  const result = await handleCommand(store, presentation, stream, command, { commandId: randomUUID(), metadata, retries: RACE_RETRIES, ...(loaded ? { loaded } : {}) });
  if (isLeft(result)) {
    if (result.left._tag === 'WrongExpectedRevision') throw new Error(`${streamRef(stream)}: the outcome kept losing to concurrent writers`);
    if (result.left._tag === 'UnknownRequestKey') throw new Error(`${streamRef(stream)}: an outcome for a request key the session never handed out`);
    return left(result.left._tag === 'StreamDeleted' || result.left._tag === 'PresentationExists' ? { _tag: 'UnknownSession' } : result.left);
  }
  return right(result.right.events[0] as PresentationTerminalEvent | undefined);
};

/**
 * The time-out as a command: appends `PresentationExpired` at the revision read if the session
 * is still open and past its expiry at `now`, and destroys the session's data key; otherwise
 * does nothing. Returns whether it expired the session.
 */
export const expirePresentation = async (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys },
  state: string,
  metadata: EventMetadata,
  now: Date,
): Promise<boolean> => {
  const result = await finish(deps.store, { type: 'Expire', data: { state, at: now.toISOString() } }, metadata);
  if (isLeft(result) || result.right === undefined) return false;
  await destroyDataKeyUnlessNeeded(deps.dataKeys, result.right);
  return true;
};
