// Expected revisions as the server's ExpectedVersion, and its check of a write against one
// (IndexWriter.CheckCommit), including the idempotency rules for retried appends.
import type { StoredEvent, StreamState } from './events.js';

/** ExpectedVersion constants of the server's internal API. */
export const EXPECTED_ANY = -2n;
export const EXPECTED_NO_STREAM = -1n;
export const EXPECTED_STREAM_EXISTS = -4n;
const NO_STREAM = -1n;
/** EventNumber.DeletedStream: the revision of a tombstone and the "current revision" of its stream. */
export const DELETED_STREAM = 9223372036854775807n;

export type CommitDecision =
  | { readonly kind: 'ok' }
  | { readonly kind: 'idempotent'; readonly last: StoredEvent }
  | { readonly kind: 'wrongExpectedVersion'; readonly current: bigint }
  | { readonly kind: 'deleted' };

/** -1 for no stream, DELETED_STREAM once tombstoned, else the last revision. */
export const currentRevisionOf = (stream: StreamState | undefined): bigint => {
  if (!stream) return NO_STREAM;
  if (stream.tombstone) return DELETED_STREAM;
  return BigInt(stream.events.length) - 1n;
};

/** IndexWriter.CheckCommit, minus soft deletes and metadata streams. */
export const checkCommit = (
  stream: StreamState | undefined,
  expected: bigint,
  ids: readonly string[],
): CommitDecision => {
  const current = currentRevisionOf(stream);
  if (current === DELETED_STREAM) return { kind: 'deleted' };
  if (expected === EXPECTED_STREAM_EXISTS && current < 0n) return { kind: 'wrongExpectedVersion', current };

  if (expected === EXPECTED_ANY || expected === EXPECTED_STREAM_EXISTS) {
    // Without a revision to compare, a retry is recognised by its event ids alone.
    let last: StoredEvent | undefined;
    for (const [i, id] of ids.entries()) {
      const stored = stream?.byId.get(id);
      if (!stored) return i === 0 ? { kind: 'ok' } : { kind: 'wrongExpectedVersion', current };
      last = stored;
    }
    return last ? { kind: 'idempotent', last } : { kind: 'ok' };
  }

  if (expected < current) {
    // The stream has moved past the expectation: it is a retry only if the same ids sit exactly
    // where this append would have put them.
    let revision = expected;
    let last: StoredEvent | undefined;
    for (const id of ids) {
      revision += 1n;
      const stored = stream?.events[Number(revision)];
      if (!stored || stored.id !== id) return { kind: 'wrongExpectedVersion', current };
      last = stored;
    }
    return last ? { kind: 'idempotent', last } : { kind: 'wrongExpectedVersion', current };
  }

  if (expected > current) return { kind: 'wrongExpectedVersion', current };
  return { kind: 'ok' };
};

interface ExpectedRevisionOptions {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
}

/** The oneof shared by Append, BatchAppend and Tombstone options, as the server's ExpectedVersion. */
export const expectedOf = (options: ExpectedRevisionOptions, revision: () => string): bigint => {
  if (options.hasAny()) return EXPECTED_ANY;
  if (options.hasNoStream()) return EXPECTED_NO_STREAM;
  if (options.hasStreamExists()) return EXPECTED_STREAM_EXISTS;
  return BigInt(revision());
};
