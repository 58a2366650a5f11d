// Flow events that ask for callbacks, appended the way the verification and issuance flows append
// them, with data their stream codecs accept, so the callback subscriber can be tested without
// driving a wallet. Each comes with the body the integrator must receive, written out from the
// spec's payload tables. With `{ embedded: true }` an event is appended as the version before the
// translation (src/callbacks/callbackOf.ts) recorded it: the facts named since in the data carried
// only in an embedded `callback` request.
import { randomBytes, randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { CallbackRequest } from '../../streams/delivery.js';
import type { OfferEvent } from '../../streams/offer.js';
import type { PresentationEvent, PresentationStatus } from '../../streams/presentation.js';
import { purposes } from '../../streams/presentationSealed.js';
import { sealFor, type DataKeys } from '../../src/crypto/dataKeys.js';
import type { EventData, EventStore, Json, Position } from '../../src/eventstore/port.js';

const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

const sealedJunk = () => ({ alg: 'A256GCM' as const, iv: randomBytes(12).toString('base64url'), ciphertext: randomBytes(16).toString('base64url'), tag: randomBytes(16).toString('base64url') });

const toData = (event: { type: string; data: unknown }): EventData => ({ id: randomUUID(), type: event.type, data: event.data as Json });

const mustAppend = async (store: EventStore, stream: string, events: EventData[], expected: 'no_stream' | number): Promise<Position> => {
  const result = await store.append(stream, events, expected);
  if (isLeft(result)) throw new Error(`append to ${stream} refused: ${result.left._tag}`);
  return result.right.position;
};

export interface Shape {
  /** Append as the version before the translation did: `data.callback`, without the facts named since. */
  readonly embedded?: boolean;
}

/** `event` as the version before the translation recorded it: the facts `namedSince` only in the embedded `callback`. */
export const embeddingCallback = (event: { readonly type: string; readonly data: object }, callback: CallbackRequest, namedSince: readonly string[]) => ({
  type: event.type,
  data: { ...Object.fromEntries(Object.entries(event.data).filter(([key]) => !namedSince.includes(key))), callback },
});

const recorded = (event: { type: string; data: object }, callback: CallbackRequest, namedSince: readonly string[], shape: Shape): EventData =>
  toData(shape.embedded ? embeddingCallback(event, callback, namedSince) : event);

export const presentationStatuses: readonly PresentationStatus[] = ['FULFILLED', 'REJECTED', 'EXPIRED', 'PROCESSING_ERROR', 'VERIFICATION_FAILED'];

export interface AppendedOutcome {
  /** `state` or `offerId`. */
  readonly eventId: string;
  readonly status: string;
  /** The body the integrator must receive, as the spec defines it. */
  readonly expectedBody: Record<string, unknown>;
  readonly position: Position;
}

/** A presentation request and its terminal event; FULFILLED carries credentials sealed with the session key. */
export const appendPresentationOutcome = async (
  store: EventStore,
  dataKeys: DataKeys,
  tenantId: string,
  status: PresentationStatus,
  shape: Shape = {},
): Promise<AppendedOutcome> => {
  const state = randomUUID();
  const issued = await dataKeys.issue(state);
  if (isLeft(issued)) throw new Error('data key not issued');
  const key = issued.right;
  const at = new Date().toISOString();
  const responseCode = status === 'FULFILLED' || status === 'VERIFICATION_FAILED' ? randomUUID() : null;
  const errorDetails = { REJECTED: 'access_denied', PROCESSING_ERROR: 'decryption failed', VERIFICATION_FAILED: 'issuer not trusted' }[status as string];
  const body: Record<string, unknown> = { status, state, ...(responseCode ? { responseCode } : {}), ...(errorDetails ? { errorDetails } : {}) };
  const personal =
    status === 'FULFILLED'
      ? {
          credentials: { pid: [{ issuer: 'https://issuer.example', claims: { given_name: 'Erika', family_name: 'Mustermann' }, signatureIsValid: true }] },
          credentialsRaw: { pid: [{ issuer: 'https://issuer.example', claims: Buffer.from('{"given_name":"Erika"}').toString('base64') }] },
        }
      : undefined;
  const presentedCredentials = personal && sealFor(key, purposes.presentedCredentials, personal);
  const requested: PresentationEvent = {
    type: 'PresentationRequested',
    data: { state, tenantId, credentialQueryIds: ['pid'], transactionDataCount: 0, request: sealFor(key, purposes.request, { dcqlQuery: { credentials: [] }, transactionData: [], redirectUri: null }), expiresAt: FAR_FUTURE, createdAt: at },
  };
  const common = { state, tenantId, at };
  const terminal: PresentationEvent = {
    FULFILLED: { type: 'PresentationFulfilled' as const, data: { ...common, kid: 'k1', flowType: 'same-device' as const, responseCode, presentedCredentials: presentedCredentials! } },
    REJECTED: { type: 'PresentationRejected' as const, data: { ...common, error: 'access_denied' } },
    EXPIRED: { type: 'PresentationExpired' as const, data: common },
    PROCESSING_ERROR: { type: 'PresentationProcessingFailed' as const, data: { ...common, errorDetails: 'decryption failed' } },
    VERIFICATION_FAILED: {
      type: 'PresentationVerificationFailed' as const,
      data: { ...common, kid: 'k1', flowType: 'same-device' as const, errorDetails: 'issuer not trusted', responseCode },
    },
  }[status];
  const callback: CallbackRequest = {
    tenantId, eventId: state, status, body,
    ...(presentedCredentials ? { sealed: { ownerId: state, purpose: purposes.presentedCredentials.name, value: presentedCredentials } } : {}),
  };
  const position = await mustAppend(store, `presentation-${state}`, [toData(requested), recorded(terminal, callback, ['tenantId', 'presentedCredentials'], shape)], 'no_stream');
  return { eventId: state, status, expectedBody: { ...body, ...personal }, position };
};

export type OfferOutcome = 'ISSUED' | 'FAILED' | 'EXPIRED';

const issuanceRequest = (tenantId: string, offerId: string, status: string, errorDetails?: string): CallbackRequest => ({
  tenantId, eventId: offerId, status, body: { eventId: offerId, status, offerId, ...(errorDetails ? { errorDetails } : {}) },
});

/** An offer (OFFER_CREATED) and, when `outcome` is given, its end; data as streams/offer.ts defines it. */
export const appendOffer = async (store: EventStore, tenantId: string, outcome?: OfferOutcome, shape: Shape = {}): Promise<AppendedOutcome[]> => {
  const offerId = randomUUID();
  const at = new Date().toISOString();
  const created = issuanceRequest(tenantId, offerId, 'OFFER_CREATED');
  const stream = `offer-${offerId}`;
  const outcomes: AppendedOutcome[] = [];
  const createdEvent: OfferEvent = {
    type: 'OfferCreated',
    data: { offerId, tenantId, credentialConfigurationId: 'pid', claims: sealedJunk(), txCode: null, createdAt: at, expiresAt: FAR_FUTURE },
  };
  const createdAt = await mustAppend(store, stream, [recorded(createdEvent, created, [], shape)], 'no_stream');
  outcomes.push({ eventId: offerId, status: 'OFFER_CREATED', expectedBody: created.body, position: createdAt });
  if (outcome) {
    const errorDetails = outcome === 'FAILED' ? 'issuer service unavailable' : undefined;
    const callback = issuanceRequest(tenantId, offerId, outcome, errorDetails);
    const offer = { offerId, tenantId };
    const event: OfferEvent = {
      ISSUED: { type: 'CredentialIssued' as const, data: { ...offer, issuedAt: at } },
      FAILED: { type: 'OfferFailed' as const, data: { ...offer, errorDetails: errorDetails!, failedAt: at } },
      EXPIRED: { type: 'OfferExpired' as const, data: { ...offer, expiredAt: at } },
    }[outcome];
    const position = await mustAppend(store, stream, [recorded(event, callback, ['offerId', 'tenantId'], shape)], 0);
    outcomes.push({ eventId: offerId, status: outcome, expectedBody: callback.body, position });
  }
  return outcomes;
};
