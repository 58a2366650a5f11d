// Callbacks are translations of domain events: for each callback kind and status of the spec's
// payload tables (Presented Credentials Event, Issuance Event, and the status changes), a recorded
// event and the callback request it translates to, body byte for byte. Personal data is only ever
// sealed, in the event and in the request. Events recorded before the translation (an embedded
// `data.callback`) are delivered as recorded and read as the current shape. Pure: no service.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import type { DataKey } from '../src/crypto/dataKeys.js';
import { open, seal } from '../src/crypto/seal.js';
import type { Json, RecordedEvent } from '../src/eventstore/port.js';
import { expired, fulfilled, processingFailed, rejected, verificationFailed } from './support/presentationOutcomes.js';
import type { VerifiedPresentation } from '../src/verification/vpToken.js';
import { credentialStatus, type CredentialStatusEvent } from '../streams/credentialStatus.js';
import type { CallbackRequest } from '../streams/delivery.js';
import { decodeRecorded, type BrokenContract } from '../streams/event.js';
import { offer, type OfferEvent } from '../streams/offer.js';
import { presentation, type PresentationEvent } from '../streams/presentation.js';
import { purposes } from '../streams/presentationSealed.js';
import { embeddingCallback } from './support/callbackSources.js';
import { recordedOn as recordedAt } from './support/recorded.js';

const STATE = 'state-1';
const TENANT = 'tenant-1';
const OFFER = 'offer-1';
const AT = new Date('2026-05-01T10:00:00.000Z');
const sealedJunk = { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'ct', tag: 'tag' };

const recordedOn = (streamId: string, event: { readonly type: string; readonly data: unknown }): RecordedEvent => recordedAt(streamId, event, AT);
const onPresentation = (event: PresentationEvent) => recordedOn(`presentation-${STATE}`, event);
const onOffer = (event: OfferEvent) => recordedOn(`offer-${OFFER}`, event);
const onCredentialStatus = (event: CredentialStatusEvent) => recordedOn(`credentialstatus-${OFFER}`, event);

const requestOf = (translated: Either<BrokenContract, CallbackRequest | undefined>): CallbackRequest | undefined => {
  if (isLeft(translated)) throw translated.left;
  return translated.right;
};

/** The request a recorded event translates to, with its body as the bytes the integrator receives. */
const translate = (recorded: RecordedEvent) => {
  const request = requestOf(callbackOf(recorded));
  if (request === undefined) throw new Error(`${recorded.type} asks for no callback`);
  const { body, ...rest } = request;
  return { ...rest, body: JSON.stringify(body) };
};

/** A data key for the session (owner id = state), as src/crypto/dataKeys.ts binds it. */
const sessionKey = (): DataKey => {
  const secret = randomBytes(32);
  return {
    seal: (value, purpose) => seal(secret, Buffer.from(JSON.stringify(value)), `${STATE}/${purpose}`),
    open: (sealed, purpose) => JSON.parse(open(secret, sealed, `${STATE}/${purpose}`).toString()) as Json,
  };
};

const base = { state: STATE, tenantId: TENANT, at: AT };
const sameDevice = { kid: 'k1', flowType: 'same-device' as const };
const crossDevice = { kid: 'k1', flowType: 'cross-device' as const };
const presented: VerifiedPresentation = {
  credentials: { pid: [{ issuer: 'https://issuer.example', claims: { given_name: 'Erika', family_name: 'Mustermann' }, signatureIsValid: true, supportRevocation: false, supportTrustAnchor: false }] },
  credentialsRaw: { pid: [{ issuer: 'https://issuer.example', claims: Buffer.from('{"given_name":"Erika","family_name":"Mustermann"}').toString('base64') }] },
};

// --- Presented Credentials Event

test('FULFILLED, same device: {status, state, responseCode}, the credentials only sealed with the session key', (t) => {
  const key = sessionKey();
  const event = fulfilled(base, sameDevice, presented, key);
  if (event.type !== 'PresentationFulfilled') return t.fail();
  const request = translate(onPresentation(event));
  t.deepEqual(request, {
    tenantId: TENANT,
    eventId: STATE,
    status: 'FULFILLED',
    body: JSON.stringify({ status: 'FULFILLED', state: STATE, responseCode: event.data.responseCode }),
    sealed: { ownerId: STATE, purpose: 'presented-credentials', value: event.data.presentedCredentials },
  });
  t.deepEqual(key.open(request.sealed!.value, request.sealed!.purpose), presented as unknown as Json);
  t.false(JSON.stringify(event).includes('Erika'), 'the event holds the credentials only sealed');
  t.false(JSON.stringify(request).includes('Erika'), 'so does the delivery\'s request');
});

test('FULFILLED, cross device: no responseCode; a lotl outcome\'s trust list digests stay out of the callback', (t) => {
  const event = fulfilled(base, crossDevice, { ...presented, trustListDigests: ['digest-1'] }, sessionKey());
  const request = translate(onPresentation(event));
  t.is(request.body, '{"status":"FULFILLED","state":"state-1"}');
  t.is(request.sealed?.purpose, purposes.presentedCredentials.name);
  t.false(JSON.stringify(request).includes('digest-1'));
});

test('REJECTED: errorDetails is the wallet\'s OAuth 2.0 error code; nothing sealed', (t) => {
  t.deepEqual(translate(onPresentation(rejected(base, 'access_denied'))), {
    tenantId: TENANT, eventId: STATE, status: 'REJECTED', body: '{"status":"REJECTED","state":"state-1","errorDetails":"access_denied"}',
  });
});

test('EXPIRED: status and state only', (t) => {
  t.deepEqual(translate(onPresentation(expired(base))), { tenantId: TENANT, eventId: STATE, status: 'EXPIRED', body: '{"status":"EXPIRED","state":"state-1"}' });
});

test('PROCESSING_ERROR: errorDetails, no responseCode', (t) => {
  t.deepEqual(translate(onPresentation(processingFailed(base, 'decryption failed'))), {
    tenantId: TENANT, eventId: STATE, status: 'PROCESSING_ERROR', body: '{"status":"PROCESSING_ERROR","state":"state-1","errorDetails":"decryption failed"}',
  });
});

test('VERIFICATION_FAILED: errorDetails; a responseCode only for a trust-enforcement failure in same-device flow', (t) => {
  const trust = verificationFailed(base, sameDevice, { reason: 'issuer not trusted', trustEnforcement: true });
  if (trust.type !== 'PresentationVerificationFailed' || trust.data.responseCode === null) return t.fail();
  t.deepEqual(translate(onPresentation(trust)), {
    tenantId: TENANT, eventId: STATE, status: 'VERIFICATION_FAILED',
    body: JSON.stringify({ status: 'VERIFICATION_FAILED', state: STATE, errorDetails: 'issuer not trusted', responseCode: trust.data.responseCode }),
  });
  const crossTrust = verificationFailed(base, crossDevice, { reason: 'issuer not trusted', trustEnforcement: true });
  t.is(translate(onPresentation(crossTrust)).body, '{"status":"VERIFICATION_FAILED","state":"state-1","errorDetails":"issuer not trusted"}');
  const invalid = verificationFailed(base, sameDevice, { reason: 'bad signature', trustEnforcement: false });
  t.is(translate(onPresentation(invalid)).body, '{"status":"VERIFICATION_FAILED","state":"state-1","errorDetails":"bad signature"}');
});

// --- Issuance Event

const offered = { offerId: OFFER, tenantId: TENANT };
const issuanceCases: readonly [string, OfferEvent, string][] = [
  [
    'OFFER_CREATED',
    { type: 'OfferCreated', data: { ...offered, credentialConfigurationId: 'pid', claims: sealedJunk, txCode: null, createdAt: AT.toISOString(), expiresAt: AT.toISOString() } },
    '{"eventId":"offer-1","status":"OFFER_CREATED","offerId":"offer-1"}',
  ],
  ['ISSUED', { type: 'CredentialIssued', data: { ...offered, issuedAt: AT.toISOString() } }, '{"eventId":"offer-1","status":"ISSUED","offerId":"offer-1"}'],
  [
    'FAILED',
    { type: 'OfferFailed', data: { ...offered, errorDetails: 'claims unavailable', failedAt: AT.toISOString() } },
    '{"eventId":"offer-1","status":"FAILED","offerId":"offer-1","errorDetails":"claims unavailable"}',
  ],
  ['EXPIRED', { type: 'OfferExpired', data: { ...offered, expiredAt: AT.toISOString() } }, '{"eventId":"offer-1","status":"EXPIRED","offerId":"offer-1"}'],
];

for (const [status, event, body] of issuanceCases) {
  test(`issuance ${status}: {eventId (= offerId), status, offerId${status === 'FAILED' ? ', errorDetails' : ''}}, nothing sealed`, (t) => {
    t.deepEqual(translate(onOffer(event)), { tenantId: TENANT, eventId: OFFER, status, body });
  });
}

// --- status changes of what was issued (Issuance Events whose eventId is the change's id)

const changes = [
  ['SUSPENDED', 'CredentialSuspended'],
  ['REVOKED', 'CredentialRevoked'],
  ['REINSTATED', 'CredentialReinstated'],
] as const;

for (const [status, type] of changes) {
  test(`status change ${status}: {eventId (= the change id), status, offerId}`, (t) => {
    const event: CredentialStatusEvent = { type, data: { offerId: OFFER, tenantId: TENANT, changeId: 'change-7', at: AT.toISOString() } };
    t.deepEqual(translate(onCredentialStatus(event)), {
      tenantId: TENANT, eventId: 'change-7', status, body: JSON.stringify({ eventId: 'change-7', status, offerId: OFFER }),
    });
  });
}

// --- what asks for no callback

const requested: PresentationEvent = {
  type: 'PresentationRequested',
  data: { state: STATE, tenantId: TENANT, credentialQueryIds: ['pid'], transactionDataCount: 0, request: sealedJunk, expiresAt: AT.toISOString(), createdAt: AT.toISOString() },
};

test('the steps between (request, fetch, wallet steps, purge, allocation) and other categories ask for no callback', (t) => {
  const none = [
    onPresentation(requested),
    onPresentation({ type: 'PresentationRequestFetched', data: { ...sameDevice, nonce: 'n', responseKey: sealedJunk, fetchedAt: AT.toISOString() } }),
    onOffer({ type: 'TxCodeRejected', data: { attempt: 1, rejectedAt: AT.toISOString() } }),
    onOffer({ type: 'PreAuthorizedCodeRedeemed', data: { accessTokenHash: 'h', dpopJkt: 'j', redeemedAt: AT.toISOString(), expiresAt: AT.toISOString() } }),
    onOffer({ type: 'ClaimsPurged', data: { purgedAt: AT.toISOString() } }),
    onCredentialStatus({ type: 'CredentialStatusAllocated', data: { offerId: OFFER, tenantId: TENANT, references: [], allocatedAt: AT.toISOString() } }),
    recordedOn(`tenant-${TENANT}`, { type: 'TenantCreated', data: { tenantId: TENANT, name: 'acme', createdAt: AT.toISOString() } }),
  ];
  for (const recorded of none) t.is(requestOf(callbackOf(recorded)), undefined, recorded.type);
});

test('an event that breaks its category\'s contract is refused with where, never translated', (t) => {
  const { tenantId: _, ...withoutTenant } = rejected(base, 'access_denied').data;
  const translated = callbackOf(onPresentation({ type: 'PresentationRejected', data: withoutTenant } as PresentationEvent));
  t.true(isLeft(translated));
  if (isLeft(translated)) t.true(translated.left.failures.some((f) => f.includes('data.tenantId: expected string')), translated.left.failures.join('; '));
});

// --- events recorded before the translation

test('upgrade: an event with an embedded callback is translated to exactly that request, and reads as the current shape', (t) => {
  const key = sessionKey();
  const current = fulfilled(base, sameDevice, presented, key);
  if (current.type !== 'PresentationFulfilled') return t.fail();
  // As recorded then: the tenant and the sealed credentials only in the callback, whose body the
  // translation would not write this way (field order): it is delivered as it was recorded.
  const recordedThen: CallbackRequest = {
    tenantId: TENANT,
    eventId: STATE,
    status: 'FULFILLED',
    body: { state: STATE, status: 'FULFILLED', responseCode: current.data.responseCode },
    sealed: { ownerId: STATE, purpose: purposes.presentedCredentials.name, value: current.data.presentedCredentials },
  };
  const legacy = recordedOn(`presentation-${STATE}`, embeddingCallback(current, recordedThen, ['tenantId', 'presentedCredentials']));
  t.deepEqual(requestOf(callbackOf(legacy)), recordedThen);
  const read = decodeRecorded(presentation.codec, legacy);
  t.like(read, { type: 'PresentationFulfilled', data: { state: STATE, tenantId: TENANT, presentedCredentials: current.data.presentedCredentials } });
  t.like([requested, read].reduce(presentation.evolve, presentation.initialState), { status: 'finished', outcome: 'FULFILLED' });
});

test('upgrade: an offer\'s end and a status change recorded before name their offer and tenant through the embedded callback', (t) => {
  const issued = requestOf(callbackOf(onOffer(issuanceCases[1]![1])))!;
  const legacyIssued = recordedOn(`offer-${OFFER}`, embeddingCallback(issuanceCases[1]![1], issued, ['offerId', 'tenantId']));
  t.deepEqual(requestOf(callbackOf(legacyIssued)), issued);
  t.like(decodeRecorded(offer.codec, legacyIssued), { type: 'CredentialIssued', data: { offerId: OFFER, tenantId: TENANT } });

  const change: CredentialStatusEvent = { type: 'CredentialRevoked', data: { offerId: OFFER, tenantId: TENANT, changeId: 'change-7', at: AT.toISOString() } };
  const revoked = requestOf(callbackOf(onCredentialStatus(change)))!;
  const legacyRevoked = recordedOn(`credentialstatus-${OFFER}`, embeddingCallback(change, revoked, ['tenantId']));
  t.deepEqual(requestOf(callbackOf(legacyRevoked)), revoked);
  t.deepEqual(decodeRecorded(credentialStatus.codec, legacyRevoked).data, { ...change.data, callback: revoked });
});

test('upgrade: an embedded callback that does not decode is no request to deliver: the event breaks its contract', (t) => {
  const legacy = recordedOn(`offer-${OFFER}`, embeddingCallback(issuanceCases[3]![1], { tenantId: TENANT } as unknown as CallbackRequest, ['offerId', 'tenantId']));
  t.true(isLeft(callbackOf(legacy)));
  t.false(isRight(offer.codec.decode({ type: legacy.type, data: legacy.data })));
});
