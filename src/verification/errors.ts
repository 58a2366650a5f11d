// What the verification steps refuse, and the one table that says how each refusal is answered:
// as problem+json on the management API (createRequest/, dcApi/) and as an OAuth error
// (`{error, error_description}`) to the wallet (requestObject/, response/). Each step's use case
// returns these as values; its route maps them here, and only here. The table is a record over
// every tag of each channel, so a refusal added to a step and left unmapped does not compile.
import { conflict, HttpError, invalidRequest, invalidValues, notFound, unprocessable, type FieldError, type Problem } from '../http/problem.js';
import type { SessionUnavailable } from './session.js';
import type { VerifierKeyReplaced } from './verifiers.js';

/** The integrator's answer for the DC API is no answer to the session's request (`detail` says why). */
export interface NotAnAnswer {
  readonly _tag: 'NotAnAnswer';
  readonly detail: string;
}

/** The integrator's `POST /oidc4vp` body breaks rules its schema cannot state. */
export interface InvalidValues {
  readonly _tag: 'InvalidValues';
  readonly problems: readonly FieldError[];
}

/**
 * The integrator's DCQL query asks for credential types or claims the tenant's registration
 * certificate does not register, and the tenant enforces its registration (registeredQueries.ts).
 */
export interface Unregistered {
  readonly _tag: 'Unregistered';
  readonly problems: readonly FieldError[];
}

/** The wallet's request is malformed (`detail` says how). */
export interface InvalidRequest {
  readonly _tag: 'InvalidRequest';
  readonly detail: string;
}

/** The wallet's form body could not be read (too large 413, wrong media type 415, malformed 400). */
export interface UnreadableBody {
  readonly _tag: 'UnreadableBody';
  readonly status: number;
  readonly detail: string;
}

/** Refusals answered on the management API. */
export type ManagementError = SessionUnavailable | NotAnAnswer | InvalidValues | Unregistered;
/** Refusals answered to the wallet. */
export type WalletError = SessionUnavailable | InvalidRequest | UnreadableBody | VerifierKeyReplaced;

/** What a wallet-facing route answers: the status and the JSON body. */
export interface WalletReply {
  readonly status: number;
  readonly body: Readonly<Record<string, string>>;
}

type Of<U, K> = Extract<U, { readonly _tag: K }>;

const oauthError = (status: number, description: string): WalletReply => ({
  status,
  body: { error: 'invalid_request', error_description: description },
});

/** The one mapping table: every refusal of each channel, and its answer there. */
const answers: {
  readonly problem: { readonly [K in ManagementError['_tag']]: (error: Of<ManagementError, K>) => Problem };
  readonly oauth: { readonly [K in WalletError['_tag']]: (error: Of<WalletError, K>) => WalletReply };
} = {
  problem: {
    UnknownSession: () => notFound('There is no presentation request with this state.'),
    SessionFinished: () => conflict('This presentation request has already ended (answered, expired or failed); its outcome stands.'),
    SessionExpired: () => conflict('This presentation request has expired; it ends as EXPIRED.'),
    OtherChannel: () =>
      conflict('This presentation request was not created for the Digital Credentials API ("flow_type": "dc_api"); its wallet answers at its response URI.'),
    NotAnAnswer: (error) => invalidRequest(`The body is not an answer to this request: ${error.detail}.`),
    InvalidValues: (error) => invalidValues(error.problems),
    Unregistered: (error) =>
      unprocessable(
        `The tenant's registration certificate does not register what this request asks for: ${error.problems.map((p) => p.message).join('; ')}.`,
        error.problems,
      ),
  },
  oauth: {
    UnknownSession: () => oauthError(404, 'There is no presentation request with this state.'),
    SessionFinished: () => oauthError(400, 'This presentation request has ended; a new one is needed.'),
    SessionExpired: () => oauthError(400, 'This presentation request has expired; a new one is needed.'),
    OtherChannel: () => oauthError(400, 'This presentation request is answered over the Digital Credentials API, not by a request URI.'),
    InvalidRequest: (error) => oauthError(400, error.detail),
    UnreadableBody: (error) => oauthError(error.status, error.detail),
    VerifierKeyReplaced: () => oauthError(400, "The verifier's access key has changed since this presentation request was made; a new one is needed."),
  },
};

/** A management refusal as the problem the route throws (the `problems` middleware writes it). */
export const problemFor = <E extends ManagementError>(error: E): HttpError =>
  new HttpError((answers.problem[error._tag] as (e: E) => Problem)(error));

/** A wallet refusal as the OAuth error the route replies. */
export const oauthErrorFor = <E extends WalletError>(error: E): WalletReply => (answers.oauth[error._tag] as (e: E) => WalletReply)(error);
