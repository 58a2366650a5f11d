// Stream category `presentation`: one stream per OpenID4VP presentation request (verification
// session), `presentation-<state>`. It holds the request, one event per flow type the signed
// request object was first fetched with (each with its own nonce and response-encryption key;
// streams written before re-fetches reused them may hold more), and exactly one terminal event:
// the outcome's facts, which src/callbacks translates into the Presented Credentials Event.
//
// Personal data never appears in the clear: the DCQL query (its `values` may name a person's
// data), the transaction data and the redirect URI are sealed with the session's data key
// (owner id = state), and so are each request's private decryption key and a FULFILLED outcome's
// presented credentials. Destroying that key after the callback leaves a stream that still
// replays every transition.
//
// A session created for the Digital Credentials API (flow type `dc_api`, OpenID4VP 1.0 Appendix A)
// records its one request (nonce and response-encryption key) in `PresentationRequested` itself,
// with the page origins it expects and the protocols it was offered in: it has no request URI,
// and it is answered on the management API's DC API route only.
//
// As a decider: one recorded request per flow type (a later fetch reuses it), exactly one
// terminal outcome, and a response that arrives after the expiry ends the session as EXPIRED
// (over the DC API it is refused instead, and the time-out ends the session); each step is taken
// only on the channel the session was created for.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { sealedFor, type Sealed } from './dataKey.js';
import { purposes, type PrivateEcJwk, type PresentedCredentials, type RequestSealed } from './presentationSealed.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'presentation';
export const presentationStream = (state: string): string => streamName(category, state);

/** How the wallet got the request: a request URI (same- or cross-device), or the Digital Credentials API. */
export const FlowType = t.keyof({ 'same-device': null, 'cross-device': null, dc_api: null }, 'FlowType');
export type FlowType = t.TypeOf<typeof FlowType>;

/** The two ways a session is answered: by a wallet that fetched a request URI, or over the DC API. */
export type Channel = 'request_uri' | 'dc_api';

/** The DC API exchange protocols a request is offered in (OpenID4VP 1.0 A.1; `org-iso-mdoc`: ISO/IEC TS 18013-7 Annex C). */
export const DcApiProtocol = t.keyof({ 'openid4vp-v1-signed': null, 'openid4vp-v1-unsigned': null, 'org-iso-mdoc': null }, 'DcApiProtocol');
export type DcApiProtocol = t.TypeOf<typeof DcApiProtocol>;

/** The outcome statuses of the Presented Credentials Event, as the spec names them. */
export const PresentationStatus = t.keyof(
  { FULFILLED: null, REJECTED: null, EXPIRED: null, PROCESSING_ERROR: null, VERIFICATION_FAILED: null },
  'PresentationStatus',
);
export type PresentationStatus = t.TypeOf<typeof PresentationStatus>;

/** A private key sealed for its purpose (a response key whatever its `kid`, or the Annex C recipient key). */
const SealedKey = sealedFor(purposes.annexCRecipientKey);
const SealedRequest = sealedFor(purposes.request);
const SealedPresentedCredentials = sealedFor(purposes.presentedCredentials);

/** A DC API session's request, made at creation: what the page hands the browser is built from it. */
export const DcApiRequestRecord = t.intersection([
  t.type({
    /** The page origins the answer may come from (`expected_origins`). */
    expectedOrigins: t.readonlyArray(t.string),
    /** The protocols the request was offered in, in the integrator's order. */
    protocols: t.readonlyArray(DcApiProtocol),
    /** `kid` of the response-encryption key, as in `PresentationRequestFetched`. */
    kid: t.string,
    nonce: t.string,
    /** The ECDH-ES private JWK, sealed for purpose `response-key/<kid>`. */
    responseKey: SealedKey,
  }),
  t.partial({
    /** Offered in `org-iso-mdoc` only: the HPKE recipient's private JWK, sealed for purpose `annex-c-recipient-key`. */
    annexCRecipientKey: SealedKey,
  }),
]);

export const PresentationRequested = eventCodec(
  'PresentationRequested',
  t.intersection([
    t.type({
      state: t.string,
      tenantId: t.string,
      /** Ids of the DCQL credential queries, for auditors; the query itself is in `request`. */
      credentialQueryIds: t.array(t.string),
      transactionDataCount: t.number,
      /** `{dcqlQuery, transactionData (base64url strings as sent), redirectUri}`, sealed. */
      request: SealedRequest,
      expiresAt: t.string,
      createdAt: t.string,
    }),
    t.partial({
      /** Flow type `dc_api` only: the request made at creation. */
      dcApi: DcApiRequestRecord,
      /**
       * The verifier's `client_id` the request was made under (`x509_hash:` of the access
       * certificate that signs it: the tenant's own, else the deployment's). Streams written
       * before tenants had verifiers of their own lack it: theirs is the deployment's.
       */
      clientId: t.string,
    }),
  ]),
);

export const PresentationRequestFetched = eventCodec(
  'PresentationRequestFetched',
  t.type({
    /** `kid` of this request's response-encryption key; wallets echo it in the JWE header. */
    kid: t.string,
    flowType: FlowType,
    nonce: t.string,
    /** The ECDH-ES private JWK, sealed: not personal, but a secret that dies with the data key. */
    responseKey: SealedKey,
    fetchedAt: t.string,
  }),
);

/** What every outcome names: the session, its tenant (whose callback it is) and when it ended. */
const outcomeFacts = { state: t.string, tenantId: t.string, at: t.string };

/** Outcomes recorded before callbacks were translated name the tenant and credentials only in their callback. */
const embedded = (callback: EmbeddedCallback) => ({
  tenantId: callback.tenantId,
  ...(callback.sealed ? { presentedCredentials: callback.sealed.value } : {}),
});

const terminal = <Type extends string, Data extends t.Props>(type: Type, data: Data) =>
  eventCodec(type, readingEmbeddedCallback(t.type({ ...outcomeFacts, ...data }), embedded));

/**
 * lotl mode: the SHA-256 of each trusted list version the outcome was decided with (each one a
 * `trustList-` stream's recorded document), so an auditor can tell which list decided it.
 */
const decidedBy = t.partial({ trustListDigests: t.readonlyArray(t.string) });

const decidedTerminal = <Type extends string, Data extends t.Props>(type: Type, data: Data) =>
  eventCodec(type, readingEmbeddedCallback(t.intersection([t.type({ ...outcomeFacts, ...data }), decidedBy]), embedded));

const ResponseCode = t.union([t.string, t.null]);

export const PresentationFulfilled = decidedTerminal('PresentationFulfilled', {
  kid: t.string,
  flowType: FlowType,
  /** Same-device only: the correlation token the wallet hands the browser; null cross-device. */
  responseCode: ResponseCode,
  /** `{credentials, credentialsRaw}` as the spec defines them, sealed for purpose `presented-credentials`. */
  presentedCredentials: SealedPresentedCredentials,
});
export const PresentationRejected = terminal('PresentationRejected', {
  /** The wallet's OAuth 2.0 error code. */
  error: t.string,
});
export const PresentationExpired = terminal('PresentationExpired', {});
export const PresentationProcessingFailed = terminal('PresentationProcessingFailed', { errorDetails: t.string });
export const PresentationVerificationFailed = decidedTerminal('PresentationVerificationFailed', {
  kid: t.string,
  flowType: FlowType,
  errorDetails: t.string,
  /** Set only for a trust-enforcement failure in same-device flow (the browser is redirected). */
  responseCode: ResponseCode,
});

export const PresentationTerminalEvent = t.union([
  PresentationFulfilled,
  PresentationRejected,
  PresentationExpired,
  PresentationProcessingFailed,
  PresentationVerificationFailed,
]);
export type PresentationTerminalEvent = t.TypeOf<typeof PresentationTerminalEvent>;

/** Every event a presentation stream can hold. */
export const PresentationEvent = t.union([PresentationRequested, PresentationRequestFetched, PresentationTerminalEvent]);
export type PresentationEvent = t.TypeOf<typeof PresentationEvent>;

export const statusOf = (event: PresentationTerminalEvent): PresentationStatus => {
  switch (event.type) {
    case 'PresentationFulfilled':
      return 'FULFILLED';
    case 'PresentationRejected':
      return 'REJECTED';
    case 'PresentationExpired':
      return 'EXPIRED';
    case 'PresentationProcessingFailed':
      return 'PROCESSING_ERROR';
    case 'PresentationVerificationFailed':
      return 'VERIFICATION_FAILED';
  }
};

export interface FetchedRequest {
  readonly kid: string;
  readonly flowType: FlowType;
  readonly nonce: string;
  readonly responseKey: Sealed<PrivateEcJwk>;
}

/** What a DC API session checks an answer against, beside its request in `fetched`. */
export interface DcApiOffer {
  readonly expectedOrigins: readonly string[];
  readonly protocols: readonly DcApiProtocol[];
  /** Offered in `org-iso-mdoc`: its recipient key, sealed. */
  readonly annexCRecipientKey?: Sealed<PrivateEcJwk>;
}

interface Session {
  readonly state: string;
  readonly tenantId: string;
  readonly request: Sealed<RequestSealed>;
  readonly expiresAt: string;
  /** The requests handed out; a DC API session's one request has flow type `dc_api`. */
  readonly fetched: readonly FetchedRequest[];
  readonly channel: Channel;
  /** Set for channel `dc_api` only. */
  readonly dcApi?: DcApiOffer;
  /** The client id recorded at creation; absent on streams written before it was recorded (the deployment's). */
  readonly clientId?: string;
}

export type PresentationState =
  | { readonly status: 'none' }
  | ({ readonly status: 'open' } & Session)
  | ({ readonly status: 'finished'; readonly outcome: PresentationStatus } & Session);

type Requested = t.TypeOf<typeof PresentationRequested>['data'];

/** The session a step names, and when it happened. */
interface Step {
  readonly state: string;
  readonly at: string;
}

/** The list versions a verification decided with (lotl mode), recorded for auditors. */
interface DecidedBy {
  readonly trustListDigests?: readonly string[];
}

/** An answer's step: the session, when, and the channel it came by (the wallet's response URI or the DC API route). */
interface Answered extends Step {
  readonly channel: Channel;
}

/**
 * The verifier's judgement of a wallet's answer to the request fetched with key `kid`, in the
 * connector specification's statuses (States). `responseCode` is a fresh correlation token;
 * `decide` records it only where the browser is sent back (same-device FULFILLED, and
 * VERIFICATION_FAILED by trust enforcement in same-device flow).
 */
export type OutcomeCommand =
  | { readonly type: 'Fulfil'; readonly data: Answered & DecidedBy & { readonly kid: string; readonly responseCode: string; readonly presentedCredentials: Sealed<PresentedCredentials> } }
  | { readonly type: 'Reject'; readonly data: Answered & { readonly error: string } }
  | {
      readonly type: 'FailVerification';
      readonly data: Answered & DecidedBy & { readonly kid: string; readonly responseCode: string; readonly errorDetails: string; readonly trustEnforcement: boolean };
    }
  | { readonly type: 'FailProcessing'; readonly data: Answered & { readonly errorDetails: string } };

export type Command =
  /**
   * The integrator's presentation request (the Authorization Request, OpenID4VP 1.0 section 5);
   * with `dcApi`, one for the Digital Credentials API, whose request is made now.
   */
  | { readonly type: 'RequestPresentation'; readonly data: Omit<Requested, 'createdAt'> & { readonly at: string } }
  /**
   * A wallet fetches the request object with `flowType`: `request` is a fresh nonce and
   * response-encryption key, recorded only if none is recorded for that flow type yet.
   */
  | { readonly type: 'FetchRequestObject'; readonly data: { readonly state: string; readonly request: FetchedRequest; readonly at: string } }
  | OutcomeCommand
  /** The time-out: ends an open session past its expiry as EXPIRED, and does nothing otherwise. */
  | { readonly type: 'Expire'; readonly data: Step };

/** Why a session cannot take a request fetch or a response now. */
export type SessionUnavailable =
  | { readonly _tag: 'UnknownSession' }
  | { readonly _tag: 'SessionFinished' }
  | { readonly _tag: 'SessionExpired' }
  /** A step of one channel on a session created for the other (`channel` is the session's). */
  | { readonly _tag: 'OtherChannel'; readonly channel: Channel };

export type DomainError =
  | { readonly _tag: 'PresentationExists'; readonly state: string }
  | SessionUnavailable
  /** An outcome for a request key the session never handed out. */
  | { readonly _tag: 'UnknownRequestKey'; readonly kid: string };

/** Why a session cannot take part in the protocol at `at` by `channel`, if it cannot. */
export const unavailable = (state: PresentationState, at: string, channel: Channel): SessionUnavailable | undefined => {
  if (state.status === 'none') return { _tag: 'UnknownSession' };
  if (state.status === 'finished') return { _tag: 'SessionFinished' };
  if (state.channel !== channel) return { _tag: 'OtherChannel', channel: state.channel };
  if (Date.parse(state.expiresAt) <= Date.parse(at)) return { _tag: 'SessionExpired' };
  return undefined;
};

/** The latest request recorded for `flowType`; sessions from before reuse may hold several. */
export const recordedFor = (fetched: readonly FetchedRequest[], flowType: FlowType): FetchedRequest | undefined =>
  [...fetched].reverse().find((request) => request.flowType === flowType);

const presentationExpired = (session: Session, at: string): PresentationTerminalEvent => ({
  type: 'PresentationExpired',
  data: { state: session.state, tenantId: session.tenantId, at },
});

const digestsOf = (data: DecidedBy) => (data.trustListDigests ? { trustListDigests: data.trustListDigests } : {});

/** The terminal event of an outcome on an open session before its expiry. */
const terminalOf = (command: OutcomeCommand, session: Session): Either<DomainError, PresentationTerminalEvent> => {
  const ended = { state: session.state, tenantId: session.tenantId, at: command.data.at };
  switch (command.type) {
    case 'Reject':
      return right({ type: 'PresentationRejected', data: { ...ended, error: command.data.error } });
    case 'FailProcessing':
      return right({ type: 'PresentationProcessingFailed', data: { ...ended, errorDetails: command.data.errorDetails } });
    case 'Fulfil':
    case 'FailVerification': {
      const { kid } = command.data;
      const answered = session.fetched.find((request) => request.kid === kid);
      if (!answered) return left({ _tag: 'UnknownRequestKey', kid });
      const { flowType } = answered;
      const sameDevice = flowType === 'same-device';
      if (command.type === 'Fulfil') {
        const { responseCode, presentedCredentials } = command.data;
        return right({
          type: 'PresentationFulfilled',
          data: { ...ended, kid, flowType, responseCode: sameDevice ? responseCode : null, presentedCredentials, ...digestsOf(command.data) },
        });
      }
      // Only a trust-enforcement failure in same-device flow redirects the browser (States).
      const { responseCode, errorDetails, trustEnforcement } = command.data;
      return right({
        type: 'PresentationVerificationFailed',
        data: { ...ended, kid, flowType, errorDetails, responseCode: sameDevice && trustEnforcement ? responseCode : null, ...digestsOf(command.data) },
      });
    }
  }
};

export const initialState: PresentationState = { status: 'none' };

export const evolve = (state: PresentationState, event: PresentationEvent): PresentationState => {
  switch (event.type) {
    case 'PresentationRequested': {
      const { state: s, tenantId, request, expiresAt, dcApi, clientId } = event.data;
      const session = { status: 'open', state: s, tenantId, request, expiresAt, ...(clientId !== undefined ? { clientId } : {}) } as const;
      if (dcApi === undefined) return { ...session, fetched: [], channel: 'request_uri' };
      const { expectedOrigins, protocols, kid, nonce, responseKey, annexCRecipientKey } = dcApi;
      const offer: DcApiOffer = { expectedOrigins, protocols, ...(annexCRecipientKey ? { annexCRecipientKey } : {}) };
      return { ...session, fetched: [{ kid, flowType: 'dc_api', nonce, responseKey }], channel: 'dc_api', dcApi: offer };
    }
    case 'PresentationRequestFetched': {
      if (state.status !== 'open') return state;
      const { kid, flowType, nonce, responseKey } = event.data;
      return { ...state, fetched: [...state.fetched, { kid, flowType, nonce, responseKey }] };
    }
    default:
      return state.status === 'none' ? state : { ...state, status: 'finished', outcome: statusOf(event) };
  }
};

export const decide = (command: Command, state: PresentationState): Either<DomainError, PresentationEvent[]> => {
  const { at } = command.data;
  switch (command.type) {
    case 'RequestPresentation': {
      if (state.status !== 'none') return left({ _tag: 'PresentationExists', state: command.data.state });
      const { at: createdAt, ...requested } = command.data;
      return right([{ type: 'PresentationRequested', data: { ...requested, createdAt } }]);
    }
    case 'FetchRequestObject': {
      const problem = unavailable(state, at, 'request_uri');
      if (problem !== undefined || state.status !== 'open') return left(problem ?? { _tag: 'SessionFinished' });
      const { request } = command.data;
      // The request URI names one Authorization Request: a later fetch reuses the recorded one.
      if (recordedFor(state.fetched, request.flowType)) return right([]);
      return right([{ type: 'PresentationRequestFetched', data: { ...request, fetchedAt: at } }]);
    }
    case 'Expire':
      return right(state.status === 'open' && Date.parse(state.expiresAt) <= Date.parse(at) ? [presentationExpired(state, at)] : []);
    default: {
      const problem = unavailable(state, at, command.data.channel);
      // An answer after the expiry does not count: by a response URI the session ends as it would
      // have without it; the DC API route refuses it (its caller is told) and the time-out ends it.
      const expiresNow = problem?._tag === 'SessionExpired' && command.data.channel === 'request_uri';
      if (state.status !== 'open' || (problem !== undefined && !expiresNow)) return left(problem ?? { _tag: 'SessionFinished' });
      if (expiresNow) return right([presentationExpired(state, at)]);
      const terminal = terminalOf(command, state);
      return isLeft(terminal) ? terminal : right([terminal.right]);
    }
  }
};

export const presentation: Decider<Command, PresentationState, PresentationEvent, DomainError> = {
  category,
  codec: PresentationEvent,
  initialState,
  evolve,
  decide,
};
