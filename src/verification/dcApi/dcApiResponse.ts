// Step 3 over the Digital Credentials API (OpenID4VP 1.0 Appendix A): the browser hands the
// wallet's answer to the integrator's page, which sends it, through its backend, to
// `POST /oidc4vp/{state}/dc-api-response` as `{origin, data, protocol?}`: `data` exactly as the
// browser returned it, `origin` the page's. The answer is judged by the handler of its protocol
// (`dcApiResponseHandlers`), named by `protocol` or, when the browser's `protocol` was not
// forwarded, told by the shape of `data`; the outcome is recorded on the session as any wallet
// answer's is, and the caller gets at once the Presented Credentials Event the callback carries.
//
// Refused without a change (the caller's error, or a session that cannot take an answer): an
// unknown session or another tenant's; one that has ended (a second answer), has expired, or was
// created for request URIs; an answer in no protocol the session was offered in, or whose `data`
// is no answer of that protocol.
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { DcApiProtocol, presentationStream, type DcApiOffer, type OutcomeCommand, type PresentationTerminalEvent } from '../../../streams/presentation.js';
import { purposes } from '../../../streams/presentationSealed.js';
import { streamRef } from '../../../streams/kernel.js';
import { openFor, type DataKey, type DataKeys } from '../../crypto/dataKeys.js';
import type { EventMetadata } from '../../eventstore/handle.js';
import type { EventStore } from '../../eventstore/port.js';
import { NonEmptyString } from '../../http/codecs.js';
import type { Logger } from '../../log.js';
import { presentationCallback } from '../../callbacks/presentationCallback.js';
import { ERROR_CODE, openResponse } from '../authorizationResponse.js';
import { verifyAnnexCResponse } from './annexCResponse.js';
import { object } from '../dcql.js';
import type { NotAnAnswer } from '../errors.js';
import { failProcessing, failVerification, fulfil, reject, type Answer } from '../outcome.js';
import type { PresentationVerifier } from '../presentedCredentialVerifier.js';
import { destroyDataKeyUnlessNeeded, finish } from '../sessionEnd.js';
import { openSession, type LoadedSession, type SessionUnavailable } from '../session.js';
import { sessionClientId, type Verifiers } from '../verifiers.js';
import { verifyVpToken } from '../vpToken.js';

/** What judging and recording a DC API answer uses. */
export interface DcApiResponseDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  /** The deployment's client id is the one of sessions recorded without their own. */
  readonly verifiers: Pick<Verifiers, 'deployment'>;
  readonly verify: PresentationVerifier;
  readonly log: Logger;
}

/** The body of `POST /oidc4vp/{state}/dc-api-response`. */
export const DcApiAnswerBody = object(
  { origin: NonEmptyString, data: t.UnknownRecord },
  { protocol: NonEmptyString },
  'DcApiAnswer',
);
export type DcApiAnswerBody = t.TypeOf<typeof DcApiAnswerBody>;

/** What a protocol's handler judges an answer with: the session, where the answer came from, and when. */
export interface DcApiAnswer {
  readonly session: LoadedSession;
  readonly offer: DcApiOffer;
  /** The page's origin, as the caller forwarded it. */
  readonly origin: string;
  readonly base: Answer;
}

/** A protocol's answer once its `data` has been read: judges it (no I/O but decryption and credential checks). */
export type DcApiJudge = (deps: DcApiResponseDeps, answer: DcApiAnswer) => Promise<OutcomeCommand>;

export interface DcApiProtocolHandler {
  /** Whether `data` has this protocol's shape, for an answer forwarded without `protocol`. */
  readonly recognises: (data: Readonly<Record<string, unknown>>) => boolean;
  /** The judge of `data`, or why `data` is no answer of this protocol (the caller's error). */
  readonly read: (data: Readonly<Record<string, unknown>>) => Either<string, DcApiJudge>;
}

// A compact JWE: five base64url parts (RFC 7516, 7.1).
const COMPACT_JWE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The answer's origin must be one the request named (`expected_origins`, compared as strings, as
 * the wallet does: A.2). A signed request's wallet checks this itself; an unsigned one's cannot,
 * so this is where a replay from another page is caught.
 */
const unexpectedOrigin = (answer: DcApiAnswer, kid: string): OutcomeCommand | undefined =>
  answer.offer.expectedOrigins.includes(answer.origin)
    ? undefined
    : failVerification(answer.base, kid, { reason: "the page's origin is not one of the request's expected_origins", trustEnforcement: false });

/** The DC API's one request: recorded at creation, the session's only one. */
const dcApiRequestOf = (session: LoadedSession) => {
  const [request] = session.session.fetched;
  if (request === undefined || request.flowType !== 'dc_api') throw new Error(`${streamRef(presentationStream(session.session.state))}: a DC API session without its request`);
  return request;
};

/**
 * OpenID4VP over the DC API, signed or unsigned (A.4): `data` is `{response: <JWE>}` for
 * `dc_api.jwt`, or `{error}`. The JWE is decrypted with the session's key; the presentation is
 * verified as by redirect, but bound to the page: a KB-JWT's `aud` is `origin:<origin>` (even for
 * signed requests), an mdoc's SessionTranscript carries OpenID4VPDCAPIHandover (B.2.6.2) of the
 * origin, the nonce and the key's thumbprint.
 */
const openid4vp: DcApiProtocolHandler = {
  recognises: (data) => (typeof data['response'] === 'string' && COMPACT_JWE.test(data['response'])) || typeof data['error'] === 'string',
  read: (data) => {
    const { response, error } = data;
    if (typeof error === 'string' && response === undefined) {
      if (!ERROR_CODE.test(error)) return left('data.error is not an OAuth 2.0 error code');
      return right(async (_deps, answer) => {
        return unexpectedOrigin(answer, dcApiRequestOf(answer.session).kid) ?? reject(answer.base, error);
      });
    }
    if (typeof response !== 'string' || error !== undefined) return left('data holds neither response (dc_api.jwt) nor error');
    return right(async (deps, answer) => {
      const { base, session, origin } = answer;
      const request = dcApiRequestOf(session);
      const refused = unexpectedOrigin(answer, request.kid);
      if (refused) return refused;
      const opened = await openResponse(response, [request], session.key);
      if (typeof opened === 'string') return failProcessing(base, opened);
      const { payload, jwkThumbprint } = opened;
      const walletError = payload['error'];
      if (typeof walletError === 'string' && ERROR_CODE.test(walletError)) return reject(base, walletError);
      if (!('vp_token' in payload)) return failProcessing(base, 'the response has neither vp_token nor error');
      const verified = await verifyVpToken(
        payload['vp_token'],
        session.request,
        { audience: `origin:${origin}`, nonce: request.nonce, handover: { origin, nonce: request.nonce, jwkThumbprint }, now: base.at, tenantId: session.session.tenantId },
        deps.verify,
      );
      return isLeft(verified) ? failVerification(base, request.kid, verified.left) : fulfil(base, request.kid, verified.right, session.key);
    });
  },
};

// An EncryptedResponse: one base64url CBOR item, never a compact JWE's dotted parts.
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * ISO/IEC TS 18013-7 Annex C (annexC.ts): `data` is `{response}`, the base64url EncryptedResponse
 * (a wallet's refusal reaches the page as an exception, never as data). It is opened with the
 * session's recipient key and the SessionTranscript of the forwarded origin, which binds the
 * answer to the page; a response that does not open is a PROCESSING_ERROR, as an OpenID4VP JWE
 * that does not decrypt is.
 */
const isoMdoc: DcApiProtocolHandler = {
  recognises: (data) => typeof data['response'] === 'string' && BASE64URL.test(data['response']),
  read: (data) => {
    const { response } = data;
    if (typeof response !== 'string') return left('data holds no response (an Annex C EncryptedResponse)');
    return right(async (deps, answer) => {
      const { base, session, offer, origin } = answer;
      const request = dcApiRequestOf(session);
      const refused = unexpectedOrigin(answer, request.kid);
      if (refused) return refused;
      if (offer.annexCRecipientKey === undefined) throw new Error(`${streamRef(presentationStream(session.session.state))}: an org-iso-mdoc offer without its recipient key`);
      const recipientPrivateKey = openFor(session.key, purposes.annexCRecipientKey, offer.annexCRecipientKey);
      const verified = await verifyAnnexCResponse(
        response,
        { request: session.request, clientId: sessionClientId(deps.verifiers, session.session), nonce: request.nonce, recipientPrivateKey, tenantId: session.session.tenantId },
        origin,
        base.at,
        deps.verify,
      );
      if (isLeft(verified)) return verified.left._tag === 'Unreadable' ? failProcessing(base, verified.left.reason) : failVerification(base, request.kid, verified.left.failure);
      return fulfil(base, request.kid, verified.right, session.key);
    });
  },
};

/** One handler per exchange protocol a session may be offered in. */
export const dcApiResponseHandlers: Readonly<Record<DcApiProtocol, DcApiProtocolHandler>> = {
  'openid4vp-v1-signed': openid4vp,
  'openid4vp-v1-unsigned': openid4vp,
  'org-iso-mdoc': isoMdoc,
};

/** The protocol the answer is in: the one it names, else the first offered one whose shape `data` has. */
const protocolOf = (body: DcApiAnswerBody, offer: DcApiOffer): Either<string, DcApiProtocol> => {
  if (body.protocol !== undefined) {
    const named = body.protocol;
    return DcApiProtocol.is(named) && offer.protocols.includes(named) ? right(named) : left(`protocol ${JSON.stringify(named)} is not one this request was offered in (${offer.protocols.join(', ')})`);
  }
  const shaped = offer.protocols.find((protocol) => dcApiResponseHandlers[protocol].recognises(body.data));
  return shaped === undefined ? left(`data has the shape of no protocol this request was offered in (${offer.protocols.join(', ')})`) : right(shaped);
};

/** Why an answer changes nothing: the session cannot take one, or the body is no answer. */
export type DcApiRefusal = SessionUnavailable | NotAnAnswer;

/** The Presented Credentials Event as the callback carries it: its body with the sealed credentials opened. */
const presentedCredentialsEvent = (event: PresentationTerminalEvent, key: DataKey): Record<string, unknown> => {
  const callback = presentationCallback(event);
  if (callback === undefined) throw new Error('a terminal presentation event without a callback');
  // A FULFILLED outcome's credentials are what its callback seals (src/callbacks/presentationCallback.ts).
  const opened = event.type === 'PresentationFulfilled' ? openFor(key, purposes.presentedCredentials, event.data.presentedCredentials) : {};
  return { ...callback.body, ...opened };
};

export interface DcApiResponseInput {
  readonly tenantId: string;
  readonly state: string;
  /** The body as its schema (`DcApiAnswerBody`) decoded it. */
  readonly body: DcApiAnswerBody;
  readonly metadata: EventMetadata;
  readonly now: Date;
}

/** Records the outcome of a DC API answer for `tenantId`'s session and returns its Presented Credentials Event. */
export const postDcApiResponse = async (deps: DcApiResponseDeps, input: DcApiResponseInput): Promise<Either<DcApiRefusal, Record<string, unknown>>> => {
  const { tenantId, state, body, metadata, now } = input;
  const opened = await openSession(deps, state, now, { channel: 'dc_api', tenantId });
  if (isLeft(opened)) return opened;
  const offer = opened.right.session.dcApi;
  if (offer === undefined) throw new Error(`${streamRef(presentationStream(state))}: a DC API session without its offer`);
  const protocol = protocolOf(body, offer);
  if (isLeft(protocol)) return left({ _tag: 'NotAnAnswer', detail: protocol.left });
  const judge = dcApiResponseHandlers[protocol.right].read(body.data);
  if (isLeft(judge)) return left({ _tag: 'NotAnAnswer', detail: judge.left });
  const base: Answer = { state, at: now, channel: 'dc_api' };
  let outcome: OutcomeCommand;
  try {
    outcome = await judge.right(deps, { session: opened.right, offer, origin: body.origin, base });
  } catch (err) {
    deps.log.error('DC API response processing failed', { err });
    outcome = failProcessing(base, 'internal error while processing the response');
  }
  const recorded = await finish(deps.store, outcome, metadata, opened.right.loaded);
  if (isLeft(recorded)) return recorded;
  if (recorded.right === undefined) throw new Error(`${streamRef(presentationStream(state))}: an outcome decided no event`);
  const event = presentedCredentialsEvent(recorded.right, opened.right.key);
  await destroyDataKeyUnlessNeeded(deps.dataKeys, recorded.right);
  return right(event);
};
