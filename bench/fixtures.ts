// Events with valid data per the stream codecs (streams/tenant.ts, streams/apiKey.ts), so the
// real projections decode and apply them as they would in production.
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventData } from '../src/eventstore/port.js';
import { apiKeyStream } from '../streams/apiKey.js';
import { tenantStream } from '../streams/tenant.js';

const createdAt = new Date('2025-01-01T00:00:00.000Z').toISOString();

export const tenantCreated = (tenantId: string, n: number): EventData => ({
  id: randomUUID(),
  type: 'TenantCreated',
  data: { tenantId, name: `Bench tenant ${n}`, createdAt },
});

export const apiKeyCreated = (keyId: string, tenantId: string): EventData => ({
  id: randomUUID(),
  type: 'ApiKeyCreated',
  data: {
    keyId,
    tenantId,
    subjectId: `subject-${randomBytes(8).toString('hex')}`,
    // base64url SHA-256: 43 characters, unique (the read model has a UNIQUE index on it).
    secretHash: randomBytes(32).toString('base64url'),
    scopes: ['connector', 'resources'],
    expiration: '2026-01-01T00:00:00.000Z',
    createdAt,
  },
});

export const apiKeyDeleted = (keyId: string): EventData => ({
  id: randomUUID(),
  type: 'ApiKeyDeleted',
  data: { keyId, deletedAt: createdAt },
});

/** One append as the store receives it. */
export interface PlannedAppend {
  readonly stream: string;
  readonly event: EventData;
  /** The exact expectation a command would send: `no_stream` for a new stream, else its revision. */
  readonly expected: 'no_stream' | number;
}

/**
 * Command-like traffic: `active` short streams in flight at once, each receiving `perStream`
 * events (the first with `no_stream`, the others with the exact revision), appends going round
 * robin over the streams in flight; a finished stream is replaced by a new one.
 */
export const commandTraffic = (count: number, active = 16, perStream = 4): PlannedAppend[] => {
  const tenantId = randomUUID();
  const slots = Array.from({ length: active }, () => ({ keyId: randomUUID(), next: 0 }));
  const out: PlannedAppend[] = [];
  for (let i = 0; i < count; i++) {
    const slot = slots[i % active]!;
    if (slot.next === perStream) {
      slot.keyId = randomUUID();
      slot.next = 0;
    }
    out.push({
      stream: apiKeyStream(slot.keyId),
      // Same payload shape and size for every append (an ApiKeyCreated body), so the reference
      // can insert exactly the same text.
      event: apiKeyCreated(slot.keyId, tenantId),
      expected: slot.next === 0 ? 'no_stream' : slot.next - 1,
    });
    slot.next++;
  }
  return out;
};

/**
 * A store's worth of history for the projections: per tenant, its TenantCreated, then
 * `keysPerTenant` ApiKeyCreated on their own streams, of which every tenth key is deleted again.
 * Returned in append order; each event is on its own stream except the deletions.
 */
export const history = (count: number, keysPerTenant = 20): PlannedAppend[] => {
  const out: PlannedAppend[] = [];
  let n = 0;
  while (out.length < count) {
    const tenantId = randomUUID();
    out.push({ stream: tenantStream(tenantId), event: tenantCreated(tenantId, n++), expected: 'no_stream' });
    for (let k = 0; k < keysPerTenant && out.length < count; k++) {
      const keyId = randomUUID();
      out.push({ stream: apiKeyStream(keyId), event: apiKeyCreated(keyId, tenantId), expected: 'no_stream' });
      if (k % 10 === 9 && out.length < count) {
        out.push({ stream: apiKeyStream(keyId), event: apiKeyDeleted(keyId), expected: 0 });
      }
    }
  }
  return out;
};
