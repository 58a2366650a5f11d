// The `delivery` member a DIDComm message reads with: its delivery's state from the deliveries
// read model. It is the state when read, not part of the message's revision (a delivery's events
// are on its own stream), so the message's etag does not change with it.
import type { Json } from '../../streams/kernel.js';
import { findDelivery } from '../../projections/deliveries.js';
import type { Envelope } from '../../streams/resource.js';
import type { Sqlite } from '../sqlite/connection.js';
import { didcommDeliveryId } from './deliveryRequest.js';

/**
 * `{status, attempts, last_attempt_at, last_error}`: `pending` until the delivery is recorded;
 * null for a message recorded before the connector delivered messages.
 */
export const deliveryOfMessage = async (db: Sqlite, envelope: Envelope): Promise<Json> => {
  if (envelope.data['transport'] === undefined) return null;
  const found = await findDelivery(db, didcommDeliveryId(envelope.tenantId, envelope.id));
  if (!found) return { status: 'pending', attempts: 0, last_attempt_at: null, last_error: null };
  const last = found.last_attempt;
  const failed = last && last.outcome !== 'delivered' ? `${last.outcome}: ${last.detail ?? ''}`.trim() : null;
  return {
    status: found.state === 'undeliverable' ? 'abandoned' : found.state,
    attempts: found.attempts,
    last_attempt_at: last?.attempted_at ?? null,
    last_error: failed,
  };
};
