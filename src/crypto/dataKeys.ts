// Per-flow data keys for crypto-shredding (DESIGN.md, Personal data). Personal data never enters
// an event in the clear: it is sealed with its flow's data key. The key lives in its own stream,
// wrapped by the key-encryption key (KEK), which is kept outside the event store; destroying the
// key tombstones that stream. Afterwards the flow's streams still replay and the data is gone.
//
// Keys go through the event store so that several instances over one EventStoreDB share them.
// The embedded store erases a tombstoned stream's events at once; EventStoreDB does at its next
// scavenge (run scavenges regularly in production).
import { randomBytes } from 'node:crypto';
import { isLeft, right, type Either } from 'fp-ts/lib/Either.js';
import { dataKey, dataKeyStream, type Sealed } from '../../streams/dataKey.js';
import { appendEvents, loadStream } from '../eventstore/handle.js';
import type { AppendError, EventStore, Json } from '../eventstore/port.js';
import { KEY_BYTES, open, seal } from './seal.js';
import { logRef } from '../../streams/kernel.js';

/** A flow's data key, usable until it is destroyed. */
export interface DataKey {
  readonly seal: (value: Json, purpose: string) => Sealed;
  /** Throws when the sealed value was not sealed with this key for this purpose. */
  readonly open: (sealed: Sealed, purpose: string) => Json;
}

export interface DataKeys {
  /** Issues the owner's key; issuing twice is refused with WrongExpectedRevision. */
  issue(ownerId: string): Promise<Either<AppendError, DataKey>>;
  /** The owner's key, or undefined once destroyed (or never issued). */
  find(ownerId: string): Promise<DataKey | undefined>;
  /** Destroys the owner's key for good; destroying twice is a no-op. */
  destroy(ownerId: string): Promise<void>;
}

const usable = (key: Buffer, ownerId: string): DataKey => ({
  seal: (value, purpose) => seal(key, Buffer.from(JSON.stringify(value), 'utf8'), `${ownerId}/${purpose}`),
  open: (sealed, purpose) => JSON.parse(open(key, sealed, `${ownerId}/${purpose}`).toString('utf8')) as Json,
});

export const dataKeys = (store: EventStore, kek: Buffer): DataKeys => {
  if (kek.length !== KEY_BYTES) throw new Error('the key-encryption key must be 32 bytes');
  return {
    async issue(ownerId) {
      const key = randomBytes(KEY_BYTES);
      const wrappedKey = seal(kek, key, `datakey/${ownerId}`);
      const issued = await appendEvents(store, dataKeyStream(ownerId), [{ type: 'DataKeyIssued', data: { ownerId, wrappedKey } }], 'no_stream');
      return isLeft(issued) ? issued : right(usable(key, ownerId));
    },
    async find(ownerId) {
      const loaded = await loadStream(store, dataKey, dataKeyStream(ownerId));
      if (isLeft(loaded) || loaded.right.state.status === 'none') return undefined;
      return usable(open(kek, loaded.right.state.wrappedKey, `datakey/${ownerId}`), ownerId);
    },
    async destroy(ownerId) {
      const result = await store.tombstone(dataKeyStream(ownerId), 'any');
      if (isLeft(result) && result.left._tag !== 'StreamDeleted') throw new Error(`data key ${logRef(ownerId)}: ${result.left._tag}`);
    },
  };
};
