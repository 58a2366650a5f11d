// Step 1 of a presentation: the integrator's `POST /oidc4vp` becomes a `PresentationRequested`
// event on a new `presentation-<state>` stream, with the request's content sealed under a data
// key issued for the session.
import { randomBytes, randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import { presentation, presentationStream, purposes, type Command, type DomainError } from '../../streams/presentation.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Json, Position } from '../eventstore/port.js';
import { NonEmptyString, withMessage } from '../http/codecs.js';
import type { FieldError } from '../http/problem.js';
import { DcqlQuery, dcqlProblems, nonEmptyArray, object, requiresHolderBinding } from './dcql.js';

/** A transaction data object as the integrator sends it; further fields belong to its rulebook. */
export const TransactionData = t.type(
  { type: NonEmptyString, credential_ids: nonEmptyArray(NonEmptyString) },
  'TransactionData',
);

const RedirectUri = withMessage(
  t.refinement(t.string, (s) => {
    try {
      const url = new URL(s);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && !s.includes('#');
    } catch {
      return false;
    }
  }),
  'expected an absolute http(s) URL without a fragment',
);

export interface ExpiryBounds {
  readonly defaultSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

export const createPresentationBody = (bounds: ExpiryBounds) =>
  object(
    { dcql_query: DcqlQuery },
    {
      redirect_uri: RedirectUri,
      transaction_data: nonEmptyArray(TransactionData),
      expires_in: withMessage(
        t.refinement(t.Int, (n) => n >= bounds.minSeconds && n <= bounds.maxSeconds),
        `expected an integer number of seconds from ${bounds.minSeconds} to ${bounds.maxSeconds}`,
      ),
    },
    'CreatePresentationRequest',
  );
export type CreatePresentationBody = t.TypeOf<ReturnType<typeof createPresentationBody>>;

/** Each transaction data object must name credential queries that can sign it: with holder binding. */
const transactionDataProblems = (body: CreatePresentationBody, location: string): FieldError[] =>
  (body.transaction_data ?? []).flatMap((item, i) =>
    item.credential_ids.flatMap((id, j): FieldError[] => {
      const query = body.dcql_query.credentials.find((c) => c.id === id);
      const at = `${location}[${i}].credential_ids[${j}]`;
      if (query === undefined) return [{ location: at, message: 'names no credential query of dcql_query', value: id }];
      // No profile says how an mdoc's device signature would cover transaction data: accepting it
      // would promise the relying party an authorization nothing checks.
      if (query.format === 'mso_mdoc') return [{ location: at, message: 'names an mso_mdoc credential query; no profile defines transaction data for mdocs', value: id }];
      if (!requiresHolderBinding(query)) {
        return [{ location: at, message: 'names a credential query without holder binding, which cannot sign transaction data', value: id }];
      }
      return [];
    }),
  );

/** `trustListUrls`: the trusted lists a DCQL `etsi_tl` may name; undefined in static mode. */
export const validatePresentationBody = (body: CreatePresentationBody, trustListUrls?: ReadonlySet<string>): FieldError[] => [
  ...dcqlProblems(body.dcql_query, 'body.dcql_query', trustListUrls),
  ...transactionDataProblems(body, 'body.transaction_data'),
];

/** What is sealed in `PresentationRequested.request`. */
export interface SealedRequest {
  readonly dcqlQuery: DcqlQuery;
  /** Each object as base64url JSON, exactly as sent to the wallet and hashed by it. */
  readonly transactionData: readonly string[];
  readonly redirectUri: string | null;
}

export const SealedRequest: t.Decoder<unknown, SealedRequest> = t.type({
  dcqlQuery: DcqlQuery,
  transactionData: t.readonlyArray(t.string),
  redirectUri: t.union([t.string, t.null]),
});

export const encodeTransactionData = (item: t.TypeOf<typeof TransactionData>): string =>
  Buffer.from(JSON.stringify(item), 'utf8').toString('base64url');

/** 256 random bits: the session's handle in every URI, unguessable. */
const newState = (): string => randomBytes(32).toString('base64url');

export interface CreatedPresentation {
  readonly state: string;
  readonly expiresAt: Date;
  readonly position: Position;
}

export const createPresentation = async (
  deps: { readonly store: EventStore; readonly dataKeys: DataKeys; readonly defaultRedirectUri: string | undefined },
  tenantId: string,
  body: CreatePresentationBody,
  bounds: ExpiryBounds,
  metadata: EventMetadata,
  now: Date,
): Promise<Either<AppendError | DomainError, CreatedPresentation>> => {
  const state = newState();
  const key = await deps.dataKeys.issue(state);
  if (isLeft(key)) return key;
  const request: SealedRequest = {
    dcqlQuery: body.dcql_query,
    transactionData: (body.transaction_data ?? []).map(encodeTransactionData),
    // Resolved now, so the flow keeps the destination it was created with whatever the configuration becomes.
    redirectUri: body.redirect_uri ?? deps.defaultRedirectUri ?? null,
  };
  const expiresAt = new Date(now.getTime() + (body.expires_in ?? bounds.defaultSeconds) * 1000);
  const requestPresentation: Command = {
    type: 'RequestPresentation',
    data: {
      state,
      tenantId,
      credentialQueryIds: body.dcql_query.credentials.map((c) => c.id),
      transactionDataCount: request.transactionData.length,
      request: key.right.seal(request as unknown as Json, purposes.request),
      expiresAt: expiresAt.toISOString(),
      at: now.toISOString(),
    },
  };
  // 256 random bits do not collide; the store makes sure of it rather than assuming (`no_stream`),
  // so nothing is read first.
  const recorded = await handleCommand(deps.store, presentation, presentationStream(state), requestPresentation, {
    commandId: randomUUID(),
    metadata,
    loaded: { state: presentation.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(recorded)) return recorded;
  return right({ state, expiresAt, position: recorded.right.position! });
};

/** The two `openid4vp://` URIs handed to the integrator, both pointing at the request object. */
export const requestUris = (
  publicUrl: string,
  clientId: string,
  state: string,
): { same_device_request_uri: string; cross_device_request_uri: string } => {
  const uri = (flowType: string): string => {
    const requestUri = `${publicUrl}/oidc4vp/${encodeURIComponent(state)}/request?flow_type=${flowType}`;
    return `openid4vp://?${new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString()}`;
  };
  return { same_device_request_uri: uri('same-device'), cross_device_request_uri: uri('cross-device') };
};
