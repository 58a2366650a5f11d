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
// As a decider: one recorded request per flow type (a later fetch reuses it), exactly one
// terminal outcome, and a response that arrives after the expiry ends the session as EXPIRED.
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { Sealed } from './dataKey.js';
import { readingEmbeddedCallback, type EmbeddedCallback } from './embeddedCallback.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'presentation';
export const presentationStream = (state: string): string => streamName(category, state);

export const FlowType = t.keyof({ 'same-device': null, 'cross-device': null }, 'FlowType');
export type FlowType = t.TypeOf<typeof FlowType>;

/** The outcome statuses of the Presented Credentials Event, as the spec names them. */
export const PresentationStatus = t.keyof(
  { FULFILLED: null, REJECTED: null, EXPIRED: null, PROCESSING_ERROR: null, VERIFICATION_FAILED: null },
  'PresentationStatus',
);
export type PresentationStatus = t.TypeOf<typeof PresentationStatus>;

/** Sealed purposes of this category's data key. */
export const purposes = {
  request: 'presentation-request',
  /** Suffixed with the request's `kid`, so one request's key cannot be swapped for another's. */
  responseKey: (kid: string) => `response-key/${kid}`,
  presentedCredentials: 'presented-credentials',
} as const;

export const PresentationRequested = eventCodec(
  'PresentationRequested',
  t.type({
    state: t.string,
    tenantId: t.string,
    /** Ids of the DCQL credential queries, for auditors; the query itself is in `request`. */
    credentialQueryIds: t.array(t.string),
    transactionDataCount: t.number,
    /** `{dcqlQuery, transactionData (base64url strings as sent), redirectUri}`, sealed. */
    request: Sealed,
    expiresAt: t.string,
    createdAt: t.string,
  }),
);

export const PresentationRequestFetched = eventCodec(
  'PresentationRequestFetched',
  t.type({
    /** `kid` of this request's response-encryption key; wallets echo it in the JWE header. */
    kid: t.string,
    flowType: FlowType,
    nonce: t.string,
    /** The ECDH-ES private JWK, sealed: not personal, but a secret that dies with the data key. */
    responseKey: Sealed,
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
  presentedCredentials: Sealed,
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
  readonly responseKey: Sealed;
}

interface Session {
  readonly state: string;
  readonly tenantId: string;
  readonly request: Sealed;
  readonly expiresAt: string;
  readonly fetched: readonly FetchedRequest[];
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

/**
 * The verifier's judgement of a wallet's answer to the request fetched with key `kid`, in the
 * connector specification's statuses (States). `responseCode` is a fresh correlation token;
 * `decide` records it only where the browser is sent back (same-device FULFILLED, and
 * VERIFICATION_FAILED by trust enforcement in same-device flow).
 */
export type OutcomeCommand =
  | { readonly type: 'Fulfil'; readonly data: Step & DecidedBy & { readonly kid: string; readonly responseCode: string; readonly presentedCredentials: Sealed } }
  | { readonly type: 'Reject'; readonly data: Step & { readonly error: string } }
  | {
      readonly type: 'FailVerification';
      readonly data: Step & DecidedBy & { readonly kid: string; readonly responseCode: string; readonly errorDetails: string; readonly trustEnforcement: boolean };
    }
  | { readonly type: 'FailProcessing'; readonly data: Step & { readonly errorDetails: string } };

export type Command =
  /** The integrator's presentation request (the Authorization Request, OpenID4VP 1.0 section 5). */
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
  | { readonly _tag: 'SessionExpired' };

export type DomainError =
  | { readonly _tag: 'PresentationExists'; readonly state: string }
  | SessionUnavailable
  /** An outcome for a request key the session never handed out. */
  | { readonly _tag: 'UnknownRequestKey'; readonly kid: string };

/** Why a session cannot take part in the protocol at `at`, if it cannot. */
export const unavailable = (state: PresentationState, at: string): SessionUnavailable | undefined => {
  if (state.status === 'none') return { _tag: 'UnknownSession' };
  if (state.status === 'finished') return { _tag: 'SessionFinished' };
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
      const { state: s, tenantId, request, expiresAt } = event.data;
      return { status: 'open', state: s, tenantId, request, expiresAt, fetched: [] };
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
      const problem = unavailable(state, at);
      if (problem !== undefined || state.status !== 'open') return left(problem ?? { _tag: 'SessionFinished' });
      const { request } = command.data;
      // The request URI names one Authorization Request: a later fetch reuses the recorded one.
      if (recordedFor(state.fetched, request.flowType)) return right([]);
      return right([{ type: 'PresentationRequestFetched', data: { ...request, fetchedAt: at } }]);
    }
    case 'Expire':
      return right(state.status === 'open' && Date.parse(state.expiresAt) <= Date.parse(at) ? [presentationExpired(state, at)] : []);
    default: {
      const problem = unavailable(state, at);
      if (state.status !== 'open' || (problem !== undefined && problem._tag !== 'SessionExpired')) return left(problem ?? { _tag: 'SessionFinished' });
      // An answer after the expiry does not count: the session ends as it would have without it.
      if (problem !== undefined) return right([presentationExpired(state, at)]);
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
