// A service with its bootstrap tenant's callbacks going to a test receiver, and helpers to
// follow deliveries on the write side (the delivery streams).
import { isLeft } from 'fp-ts/lib/Either.js';
import { delivery, deliveryIdOf, deliveryStream, type Delivery, type DeliveryEvent, type DeliveryState } from '../../streams/delivery.js';
import { decodeRecorded } from '../../streams/event.js';
import { loadStream } from '../../src/eventstore/handle.js';
import type { EventStore } from '../../src/eventstore/port.js';
import { BOOTSTRAP_TENANT_ID } from '../../src/tenancy/bootstrap.js';
import { startReceiver, TEST_WEBHOOK_SECRET, type Receiver } from './receiver.js';
import { startTestService, type TestService } from './service.js';

/** Three quick attempts and a one-second timeout: whole schedules run within a test. */
export const quickCallbackEnv = (receiver: Receiver): Record<string, string> => ({
  CALLBACK_URL: receiver.url,
  CALLBACK_SECRET: TEST_WEBHOOK_SECRET,
  CALLBACK_RETRY_SCHEDULE: '0,100ms,200ms',
  CALLBACK_TIMEOUT_SECONDS: '1',
});

export const withCallbackService = async (
  body: (service: TestService, receiver: Receiver) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> => {
  const receiver = await startReceiver();
  const service = await startTestService({ env: { ...quickCallbackEnv(receiver), ...env } });
  try {
    await body(service, receiver);
  } finally {
    await service.cleanup();
    await receiver.close();
  }
};

export const bootstrapDeliveryId = (eventId: string, status: string): string => deliveryIdOf(BOOTSTRAP_TENANT_ID, eventId, status);

export const deliveryEvents = async (store: EventStore, deliveryId: string): Promise<DeliveryEvent[]> => {
  const read = await store.readStream(deliveryStream(deliveryId));
  return read._tag === 'Found' ? read.events.map((e) => decodeRecorded(delivery.codec, e)) : [];
};

export const deliveryState = async (store: EventStore, deliveryId: string): Promise<DeliveryState> => {
  const loaded = await loadStream(store, delivery, deliveryStream(deliveryId));
  return isLeft(loaded) ? { status: 'none' } : loaded.right.state;
};

/** Polls the delivery stream (bounded) until `check` holds on its state. */
export const eventuallyDelivery = async (
  store: EventStore,
  deliveryId: string,
  check: (state: DeliveryState) => boolean,
  attempts = 400,
): Promise<DeliveryState> => {
  let state = await deliveryState(store, deliveryId);
  for (let i = 0; i < attempts && !check(state); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    state = await deliveryState(store, deliveryId);
  }
  return state;
};

export const ended = (state: DeliveryState): state is Delivery => state.status !== 'none' && state.status !== 'pending';
