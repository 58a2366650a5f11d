// Step 1 of a presentation: the integrator's `POST /oidc4vp` becomes a `PresentationRequested`
// event on a new `presentation-<state>` stream, with the request's content sealed under a data
// key issued for the session. With `"flow_type": "dc_api"` (OpenID4VP 1.0 Appendix A) the
// request itself (nonce, response-encryption key) is made and recorded now, with the page origins
// it expects and the DC API protocols it is offered in.
import { randomBytes, randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import type { JWK } from 'jose';
import { DcApiProtocol, presentation, presentationStream, purposes, type Command, type DomainError, type FetchedRequest } from '../../streams/presentation.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { AppendError, EventStore, Json, Position } from '../eventstore/port.js';
import { NonEmptyString, withMessage } from '../http/codecs.js';
import type { FieldError } from '../http/problem.js';
import { DcqlQuery, dcqlProblems, nonEmptyArray, object, requiresHolderBinding } from './dcql.js';
import { ANNEX_C_PROTOCOL, annexCQueryProblems } from './annexCRequest.js';
import { newAnnexCRecipientKey, newRequest } from './requestKey.js';
import type { SealedRequest } from './sealedRequest.js';

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

/**
 * An origin as a browser serialises it (the string the wallet compares `expected_origins` with,
 * OpenID4VP 1.0 A.2): https, a host and perhaps a port, no path, query, fragment or user.
 */
const HttpsOrigin = withMessage(
  t.refinement(t.string, (s) => {
    try {
      const url = new URL(s);
      return url.protocol === 'https:' && url.origin === s;
    } catch {
      return false;
    }
  }),
  'expected an https origin without path, such as https://shop.example',
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
      flow_type: withMessage(t.literal('dc_api'), 'expected dc_api (the other flow types are chosen by the wallet\'s request URI)'),
      expected_origins: nonEmptyArray(HttpsOrigin),
      dc_api_signed: t.boolean,
      dc_api_protocols: nonEmptyArray(withMessage(t.string, 'expected a string')),
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

/**
 * The DC API's members: `expected_origins` required with `"flow_type": "dc_api"`, no
 * `redirect_uri` with it (the page gets the answer, nobody is redirected), and none of them without it;
 * `dc_api_protocols` names each supported protocol once, and stands instead of `dc_api_signed`.
 * An mdoc claim's `intent_to_retain` is optional here as on any channel (OpenID4VP 1.0 B.2.4).
 */
const dcApiProblems = (body: CreatePresentationBody): FieldError[] => {
  if (body.flow_type !== 'dc_api') {
    return (['expected_origins', 'dc_api_signed', 'dc_api_protocols'] as const)
      .filter((name) => body[name] !== undefined)
      .map((name) => ({ location: `body.${name}`, message: 'is only for "flow_type": "dc_api"', value: body[name] }));
  }
  const problems: FieldError[] = [];
  if (body.expected_origins === undefined) problems.push({ location: 'body.expected_origins', message: 'is required with "flow_type": "dc_api"', value: undefined });
  if (body.redirect_uri !== undefined) problems.push({ location: 'body.redirect_uri', message: 'has no use with "flow_type": "dc_api": the page receives the answer', value: body.redirect_uri });
  if (body.dc_api_protocols !== undefined && body.dc_api_signed !== undefined) {
    problems.push({ location: 'body.dc_api_signed', message: 'is implied by dc_api_protocols; give one of them', value: body.dc_api_signed });
  }
  (body.dc_api_protocols ?? []).forEach((protocol, i) => {
    const location = `body.dc_api_protocols[${i}]`;
    if (!DcApiProtocol.is(protocol)) problems.push({ location, message: `expected one of ${Object.keys(DcApiProtocol.keys).join(', ')}`, value: protocol });
    else if (body.dc_api_protocols!.indexOf(protocol) !== i) problems.push({ location, message: 'names a protocol already named', value: protocol });
  });
  // ISO/IEC 18013-7 Annex C asks for mdocs only, each docType once.
  if (body.dc_api_protocols?.includes(ANNEX_C_PROTOCOL)) problems.push(...annexCQueryProblems(body.dcql_query, 'body.dcql_query'));
  return problems;
};

/** `trustListUrls`: the trusted lists a DCQL `etsi_tl` may name; undefined in static mode. */
export const validatePresentationBody = (body: CreatePresentationBody, trustListUrls?: ReadonlySet<string>): FieldError[] => [
  ...dcqlProblems(body.dcql_query, 'body.dcql_query', trustListUrls),
  ...transactionDataProblems(body, 'body.transaction_data'),
  ...dcApiProblems(body),
];

/** The protocols a valid DC API body asks for, in its order: `dc_api_protocols`, else one per `dc_api_signed` (signed by default, as HAIP has it). */
const dcApiProtocolsOf = (body: CreatePresentationBody): readonly DcApiProtocol[] =>
  (body.dc_api_protocols?.filter(DcApiProtocol.is)) ?? [body.dc_api_signed === false ? 'openid4vp-v1-unsigned' : 'openid4vp-v1-signed'];

export const encodeTransactionData = (item: t.TypeOf<typeof TransactionData>): string =>
  Buffer.from(JSON.stringify(item), 'utf8').toString('base64url');

/** 256 random bits: the session's handle in every URI, unguessable. */
const newState = (): string => randomBytes(32).toString('base64url');

export interface CreatedPresentation {
  readonly state: string;
  readonly expiresAt: Date;
  readonly position: Position;
  /** Flow type `dc_api`: the request recorded, its public response-encryption key and what it is offered in. */
  readonly dcApi?: CreatedDcApiRequest;
}

export interface CreatedDcApiRequest {
  readonly request: FetchedRequest;
  readonly publicJwk: JWK;
  /** Offered in `org-iso-mdoc`: the public half of its HPKE recipient key. */
  readonly annexCRecipientKey?: JWK;
  readonly expectedOrigins: readonly string[];
  readonly protocols: readonly DcApiProtocol[];
  readonly dcqlQuery: DcqlQuery;
  readonly transactionData: readonly string[];
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
  const dcApi = body.flow_type === 'dc_api';
  const request: SealedRequest = {
    dcqlQuery: body.dcql_query,
    transactionData: (body.transaction_data ?? []).map(encodeTransactionData),
    // Resolved now, so the flow keeps the destination it was created with whatever the
    // configuration becomes. Nobody is redirected after a DC API answer.
    redirectUri: dcApi ? null : body.redirect_uri ?? deps.defaultRedirectUri ?? null,
  };
  const expiresAt = new Date(now.getTime() + (body.expires_in ?? bounds.defaultSeconds) * 1000);
  const made = dcApi ? { ...newRequest('dc_api', key.right), expectedOrigins: body.expected_origins ?? [], protocols: dcApiProtocolsOf(body) } : undefined;
  const annexC = made?.protocols.includes(ANNEX_C_PROTOCOL) ? newAnnexCRecipientKey(key.right) : undefined;
  const requestPresentation: Command = {
    type: 'RequestPresentation',
    data: {
      state,
      tenantId,
      credentialQueryIds: body.dcql_query.credentials.map((c) => c.id),
      transactionDataCount: request.transactionData.length,
      request: key.right.seal(request as unknown as Json, purposes.request),
      expiresAt: expiresAt.toISOString(),
      ...(made
        ? {
            dcApi: {
              expectedOrigins: made.expectedOrigins,
              protocols: made.protocols,
              kid: made.request.kid,
              nonce: made.request.nonce,
              responseKey: made.request.responseKey,
              ...(annexC ? { annexCRecipientKey: annexC.sealed } : {}),
            },
          }
        : {}),
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
  const created = { state, expiresAt, position: recorded.right.position! };
  if (!made) return right(created);
  return right({
    ...created,
    dcApi: { ...made, dcqlQuery: request.dcqlQuery, transactionData: request.transactionData, ...(annexC ? { annexCRecipientKey: annexC.publicJwk } : {}) },
  });
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
