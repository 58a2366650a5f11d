// Per-flow data keys for crypto-shredding (DESIGN.md, Personal data). Personal data never enters
// an event in the clear: it is sealed with its flow's data key. The key lives in its own stream,
// wrapped by the key-encryption key (KEK, src/crypto/kek.ts: a key file or a PKCS#11 token's
// key), which is kept outside the event store; destroying the key tombstones that stream. Afterwards the flow's streams still replay and the data is gone.
//
// Keys go through the event store so that several instances over one EventStoreDB share them.
// The embedded store erases a tombstoned stream's events at once; EventStoreDB does at its next
// scavenge (run scavenges regularly in production).
import { randomBytes } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { dataKey, dataKeyStream, type Sealed, type SealedPurpose } from '../../streams/dataKey.js';
import { handleCommand, loadStream } from '../eventstore/handle.js';
import type { AppendError, EventStore, Json } from '../eventstore/port.js';
import type { Kek } from './kek.js';
import { KEY_BYTES, open, seal } from './seal.js';
import { openStream, sealStream } from './sealedStream.js';
import type { Transform } from 'node:stream';
import { logRef } from '../../streams/kernel.js';

/** A flow's data key, usable until it is destroyed. */
export interface DataKey {
  /** Seals a JSON value for a purpose named by a string; `sealFor` seals one typed by its purpose. */
  readonly seal: (value: Json, purpose: string) => Sealed;
  /** Throws when the sealed value was not sealed with this key for this purpose; `openFor` reads it back typed. */
  readonly open: (sealed: Sealed, purpose: string) => Json;
}

/** Seals `value` for `purpose` with `key`: what `openFor` gives back, typed by the purpose. */
export const sealFor = <T extends Json>(key: Pick<DataKey, 'seal'>, purpose: SealedPurpose<T>, value: T): Sealed<T> => {
  const { alg, iv, ciphertext, tag } = key.seal(value, purpose.name);
  return { alg, iv, ciphertext, tag };
};

/**
 * Opens what `sealFor` sealed for `purpose`, read back with the purpose's codec. Throws when it was
 * not sealed with this key for this purpose, or does not read back as the purpose's values (a
 * broken contract, like an event that does not decode).
 */
export const openFor = <T extends Json>(key: Pick<DataKey, 'open'>, purpose: SealedPurpose<T>, sealed: Sealed<NoInfer<T>>): T => {
  const decoded = purpose.codec.decode(key.open(sealed, purpose.name));
  if (isLeft(decoded)) throw new Error(`a value sealed for ${purpose.name} breaks its contract`);
  return decoded.right;
};

/** A data key that also seals byte streams (blob content) of any length. */
export interface StreamDataKey extends DataKey {
  /** Seals the bytes written to it, in bounded memory (src/crypto/sealedStream.ts). */
  readonly sealStream: (purpose: string) => Transform;
  /** Opens what sealStream sealed for this purpose; errors on anything else. */
  readonly openStream: (purpose: string) => Transform;
}

export interface DataKeys {
  /** Issues the owner's key; issuing twice is refused with WrongExpectedRevision. */
  issue(ownerId: string): Promise<Either<AppendError, StreamDataKey>>;
  /** The owner's key, or undefined once destroyed (or never issued). */
  find(ownerId: string): Promise<StreamDataKey | undefined>;
  /** Destroys the owner's key for good; destroying twice is a no-op. */
  destroy(ownerId: string): Promise<void>;
}

/** Keys are the service's bookkeeping, whoever's flow they serve. */
const SERVICE = { actor: 'service' };

const usable = (key: Buffer, ownerId: string): StreamDataKey => ({
  seal: (value, purpose) => seal(key, Buffer.from(JSON.stringify(value), 'utf8'), `${ownerId}/${purpose}`),
  // Sealed from JSON.stringify by `seal` and authenticated: JSON.
  open: (sealed, purpose): Json => JSON.parse(open(key, sealed, `${ownerId}/${purpose}`).toString('utf8')),
  sealStream: (purpose) => sealStream(key, `${ownerId}/${purpose}`),
  openStream: (purpose) => openStream(key, `${ownerId}/${purpose}`),
});

export const dataKeys = (store: EventStore, kek: Kek): DataKeys => {
  return {
    async issue(ownerId) {
      const key = randomBytes(KEY_BYTES);
      const wrappedKey = await kek.wrap(key, `datakey/${ownerId}`);
      // A new owner's stream: nothing to read, and the store lets one issue win. Named by the key
      // itself (its wrapping's IV), so only a re-run of this very issue is taken as written.
      const issued = await handleCommand(store, dataKey, dataKeyStream(ownerId), { type: 'IssueDataKey', data: { ownerId, wrappedKey } }, {
        commandId: `datakey.${wrappedKey.iv}`,
        metadata: SERVICE,
        loaded: { state: dataKey.initialState, expectedRevision: 'no_stream' },
      });
      if (isLeft(issued)) {
        const failed = issued.left;
        switch (failed.kind) {
          // Decided on a stream taken as new, so only the store refuses (an existing key's stream).
          case 'domain':
            throw new Error('a data key refused on a new stream');
          case 'store':
            return left(failed.error);
        }
      }
      return right(usable(key, ownerId));
    },
    async find(ownerId) {
      const loaded = await loadStream(store, dataKey, dataKeyStream(ownerId));
      if (isLeft(loaded) || loaded.right.state.status === 'none') return undefined;
      return usable(await kek.unwrap(loaded.right.state.wrappedKey, `datakey/${ownerId}`), ownerId);
    },
    async destroy(ownerId) {
      const result = await store.tombstone(dataKeyStream(ownerId), 'any');
      if (isLeft(result) && result.left._tag !== 'StreamDeleted') throw new Error(`data key ${logRef(ownerId)}: ${result.left._tag}`);
    },
  };
};
