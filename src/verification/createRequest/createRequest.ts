// Step 1 of a presentation (the EUDI verifier's initTransaction): the integrator's request becomes
// a `PresentationRequested` event on a new `presentation-<state>` stream, with the request's
// content sealed under a data key issued for the session. By request URI, the integrator gets the
// two `openid4vp://` URIs; with `"flow_type": "dc_api"` (OpenID4VP 1.0 Appendix A) the request
// itself (nonce, response-encryption key) is made and recorded now, with the page origins it
// expects and the DC API protocols it is offered in, and the integrator gets what its page hands
// the browser. The tenant's verifier is resolved now (verifiers.ts) and its client id recorded;
// a tenant enforcing its registration is refused a query outside it (registeredQueries.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { DcApiProtocol, presentation, presentationStream, type Command } from '../../../streams/presentation.js';
import { purposes } from '../../../streams/presentationSealed.js';
import { sealFor, type DataKeys } from '../../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../../eventstore/handle.js';
import type { EventStore, Json, Position } from '../../eventstore/port.js';
import { ANNEX_C_PROTOCOL } from '../dcApi/annexCRequest.js';
import { dcApiRequest, type DcApiRequest } from '../dcApi/dcApiRequest.js';
import type { InvalidValues, Unregistered } from '../errors.js';
import { unregisteredRequests } from '../registeredQueries.js';
import { newAnnexCRecipientKey, newRequest } from '../requestKey.js';
import type { SealedRequest } from '../sealedRequest.js';
import type { Verifiers } from '../verifiers.js';
import type { Settings } from '../../tenantIdentity/settings.js';
import { encodeTransactionData, validatePresentationBody, type CreatePresentationBody, type ExpiryBounds } from './body.js';

/** What creating a request uses: the store, the data keys, who each tenant's verifier is and the settings it applies. */
export interface CreateRequestDeps {
  readonly store: EventStore;
  readonly dataKeys: DataKeys;
  readonly verifiers: Pick<Verifiers, 'forNewRequest'>;
  readonly bounds: ExpiryBounds;
  /**
   * The tenant's settings over the environment's (src/tenantIdentity/settings.ts): the same-device
   * redirect of requests created without `redirect_uri` (DEFAULT_REDIRECT_URI) and their lifetime
   * without `expires_in` (PRESENTATION_EXPIRES_IN).
   */
  readonly settingsOf: (tenantId: string) => Pick<Settings, 'defaultRedirectUri' | 'presentationExpiresIn'>;
  /** The trusted lists a DCQL `etsi_tl` may name now; undefined in static mode. */
  readonly trustListUrls: () => ReadonlySet<string> | undefined;
}

export interface CreateRequestInput {
  readonly tenantId: string;
  /** The body as its schema (body.ts) decoded it. */
  readonly body: CreatePresentationBody;
  readonly metadata: EventMetadata;
  readonly now: Date;
}

/** The two `openid4vp://` URIs handed to the integrator, both pointing at the request object. */
export interface RequestUris {
  readonly same_device_request_uri: string;
  readonly cross_device_request_uri: string;
}

export interface InitiatedTransaction {
  readonly state: string;
  readonly expiresAt: Date;
  readonly position: Position;
  /** By request URI: where the wallet fetches the request. */
  readonly requestUris?: RequestUris;
  /** Flow type `dc_api`: what the page passes to the browser, in the order of `dc_api_protocols` if given, else the one request. */
  readonly dcApiRequest?: DcApiRequest | DcApiRequest[];
}

/** The protocols a valid DC API body asks for, in its order: `dc_api_protocols`, else one per `dc_api_signed` (signed by default, as HAIP has it). */
const dcApiProtocolsOf = (body: CreatePresentationBody): readonly DcApiProtocol[] =>
  (body.dc_api_protocols?.filter(DcApiProtocol.is)) ?? [body.dc_api_signed === false ? 'openid4vp-v1-unsigned' : 'openid4vp-v1-signed'];

/** 256 random bits: the session's handle in every URI, unguessable. */
const newState = (): string => randomBytes(32).toString('base64url');

export const requestUris = (publicUrl: string, clientId: string, state: string): RequestUris => {
  const uri = (flowType: string): string => {
    const requestUri = `${publicUrl}/oidc4vp/${encodeURIComponent(state)}/request?flow_type=${flowType}`;
    return `openid4vp://?${new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString()}`;
  };
  return { same_device_request_uri: uri('same-device'), cross_device_request_uri: uri('cross-device') };
};

/**
 * Creates `tenantId`'s presentation request, or says which of the body's values break its rules
 * or, when the tenant enforces its registration, ask for what it does not register (nothing recorded).
 */
export const initTransaction = async (deps: CreateRequestDeps, input: CreateRequestInput): Promise<Either<InvalidValues | Unregistered, InitiatedTransaction>> => {
  const { body, now } = input;
  const problems = validatePresentationBody(body, deps.trustListUrls());
  if (problems.length > 0) return left({ _tag: 'InvalidValues', problems });
  const verifier = await deps.verifiers.forNewRequest(input.tenantId);
  const registration = verifier.registration;
  if (registration?.enforce) {
    const unregistered = unregisteredRequests(body.dcql_query, registration.credentials, 'body.dcql_query');
    if (unregistered.length > 0) return left({ _tag: 'Unregistered', problems: unregistered });
  }
  const state = newState();
  const key = await deps.dataKeys.issue(state);
  if (isLeft(key)) throw new Error(`presentation not created: ${key.left._tag}`);
  const dcApi = body.flow_type === 'dc_api';
  const settings = deps.settingsOf(input.tenantId);
  const request: SealedRequest = {
    dcqlQuery: body.dcql_query,
    transactionData: (body.transaction_data ?? []).map(encodeTransactionData),
    // Resolved now, so the flow keeps the destination it was created with whatever the
    // configuration becomes. Nobody is redirected after a DC API answer.
    redirectUri: dcApi ? null : body.redirect_uri ?? settings.defaultRedirectUri ?? null,
  };
  const expiresAt = new Date(now.getTime() + (body.expires_in ?? settings.presentationExpiresIn) * 1000);
  const made = dcApi ? { ...newRequest('dc_api', key.right), expectedOrigins: body.expected_origins ?? [], protocols: dcApiProtocolsOf(body) } : undefined;
  const annexC = made?.protocols.includes(ANNEX_C_PROTOCOL) ? newAnnexCRecipientKey(key.right) : undefined;
  const requestPresentation: Command = {
    type: 'RequestPresentation',
    data: {
      state,
      tenantId: input.tenantId,
      credentialQueryIds: body.dcql_query.credentials.map((c) => c.id),
      transactionDataCount: request.transactionData.length,
      request: sealFor(key.right, purposes.request, request),
      expiresAt: expiresAt.toISOString(),
      clientId: verifier.clientId,
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
    metadata: input.metadata,
    loaded: { state: presentation.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(recorded)) throw new Error(`presentation not created: ${recorded.left.error._tag}`);
  const created = { state, expiresAt, position: recorded.right.position! };
  if (!made) return right({ ...created, requestUris: requestUris(verifier.publicUrl, verifier.clientId, state) });
  return right({
    ...created,
    dcApiRequest: await dcApiRequest(verifier, made.protocols, body.dc_api_protocols !== undefined, {
      kid: made.request.kid,
      nonce: made.request.nonce,
      publicJwk: made.publicJwk,
      ...(annexC ? { annexCRecipientKey: annexC.publicJwk } : {}),
      dcqlQuery: request.dcqlQuery,
      transactionData: request.transactionData,
      expectedOrigins: made.expectedOrigins,
      expiresAt,
      now,
    }),
  });
};
