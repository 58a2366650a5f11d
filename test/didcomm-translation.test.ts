// A DIDComm message's delivery is a translation of its event, like a callback's: a message sent
// with a transport asks for one delivery naming it (no recipient, no personal data); a message
// recorded before the transport existed, and every later change of a message, ask for none.
import test from 'ava';
import { callbackOf } from '../src/callbacks/callbackOf.js';
import { DIDCOMM_DELIVERY_STATUS, didcommDeliveryId } from '../src/didcomm/deliveryRequest.js';
import type { Json, RecordedEvent } from '../src/eventstore/port.js';
import { deliveryIdOf } from '../streams/delivery.js';
import { didcommStream, type DidcommMessageEvent } from '../streams/didcommMessage.js';
import { recordedOn } from './support/recorded.js';

const MESSAGE = '6f1c2b3a-0d4e-4f5a-8b6c-7d8e9f0a1b2c';
const TENANT = 'tenant-1';
const sealedRecipient = { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'sealed recipient', tag: 'tag' };

const recorded = (event: DidcommMessageEvent): RecordedEvent => recordedOn(didcommStream(MESSAGE), event);

const sent = (transport: 'didcomm/v2' | undefined): DidcommMessageEvent => ({
  type: 'DidcommMessageSent',
  data: {
    messageId: MESSAGE, tenantId: TENANT, from: 'did:web:connector.example:tenants:tenant-1', to: sealedRecipient, keyId: 'k',
    credentials: { items: [] }, files: { items: [] }, presentations: { items: [] }, annotations: {}, labels: {}, sentAt: '2026-05-01T10:00:00.000Z', transport,
  },
});

test('given a message sent with the didcomm/v2 transport, it asks for one delivery naming the message, and nothing personal', (t) => {
  const request = callbackOf(recorded(sent('didcomm/v2')));
  t.deepEqual(request, { _tag: 'Right', right: { tenantId: TENANT, eventId: MESSAGE, status: DIDCOMM_DELIVERY_STATUS, body: {}, didcomm: { messageId: MESSAGE } } });
  t.false(JSON.stringify(request).includes('sealed recipient'));
  t.is(didcommDeliveryId(TENANT, MESSAGE), deliveryIdOf(TENANT, MESSAGE, 'DIDCOMM_MESSAGE'), 'one delivery per message and tenant, found again from the message');
});

test('given a message recorded before the transport, or a later change of a message, no delivery', (t) => {
  t.deepEqual(callbackOf(recorded(sent(undefined))), { _tag: 'Right', right: undefined });
  t.deepEqual(callbackOf(recorded({ type: 'DidcommMessageLabelsUpdated', data: { messageId: MESSAGE, labels: { a: 'b' }, updatedAt: '2026-05-02T00:00:00Z' } })), { _tag: 'Right', right: undefined });
  t.deepEqual(callbackOf(recorded({ type: 'DidcommMessageDeleted', data: { messageId: MESSAGE, deletedAt: '2026-05-02T00:00:00Z' } })), { _tag: 'Right', right: undefined });
});

test('given a message event that breaks its contract, the recorder is told (BrokenContract), not a delivery', (t) => {
  const broken = { ...recorded(sent('didcomm/v2')), data: { messageId: MESSAGE } as Json };
  t.is(callbackOf(broken)._tag, 'Left');
});
