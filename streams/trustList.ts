// Stream category `trustList`: one stream per trusted list, `trustList-<key>` (the source id for a
// configured list; the source id and a digest of the URL for a list a LoTL points to). Each
// version accepted is recorded with the SHA-256 of the signed document, which the blob store
// keeps byte for byte: an auditor can fetch the exact list that decided a presentation, and a
// restart starts from the last recorded version instead of trusting nothing.
//
// A decider: `decide(command, state)` is pure (the fetch time comes in the command), `evolve`
// folds the events.
//
// | State    | Command              | Condition                                 | Events / error           |
// |----------|----------------------|-------------------------------------------|--------------------------|
// | none     | RecordFetchedVersion | -                                         | TrustListVersionAccepted |
// | recorded | RecordFetchedVersion | same document (digest)                    | TrustListVersionConfirmed |
// | recorded | RecordFetchedVersion | sequence number lower than the recorded   | SequenceRewound          |
// | recorded | RecordFetchedVersion | another document, sequence not lower      | TrustListVersionAccepted |
import * as t from 'io-ts';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'trustList';
export const trustListStream = (key: string): string => streamName(category, key);

export const ListFormat = t.keyof({ lotl: null, tl: null, lote: null }, 'ListFormat');

const Version = t.type({
  sourceId: t.string,
  url: t.string,
  format: ListFormat,
  /** The LoTL whose pointer pinned the signers; null for a configured source. */
  parentUrl: t.union([t.string, t.null]),
  territory: t.union([t.string, t.null]),
  listType: t.string,
  operator: t.string,
  sequenceNumber: t.number,
  issuedAt: t.string,
  nextUpdate: t.union([t.string, t.null]),
  /** SHA-256 (hex) of the signed document as fetched. */
  digest: t.string,
  /** Its name in the blob store (`digest_multibase`) and size. */
  blob: t.string,
  size: t.number,
  fetchedAt: t.string,
});
export type TrustListVersion = t.TypeOf<typeof Version>;

export const TrustListVersionAccepted = eventCodec('TrustListVersionAccepted', Version);
/** The recorded document fetched and verified again: its data is current as of `fetchedAt`. */
export const TrustListVersionConfirmed = eventCodec('TrustListVersionConfirmed', t.type({ digest: t.string, fetchedAt: t.string }));

export const TrustListEvent = t.union([TrustListVersionAccepted, TrustListVersionConfirmed]);
export type TrustListEvent = t.TypeOf<typeof TrustListEvent>;

export interface RecordFetchedVersion {
  readonly type: 'RecordFetchedVersion';
  readonly version: TrustListVersion;
}
export type TrustListCommand = RecordFetchedVersion;

export interface SequenceRewound {
  readonly _tag: 'SequenceRewound';
  readonly recorded: number;
  readonly fetched: number;
}
export type TrustListError = SequenceRewound;

export type TrustListState =
  | { readonly status: 'none' }
  | { readonly status: 'recorded'; readonly version: TrustListVersion };

export const initialState: TrustListState = { status: 'none' };

export const evolve = (state: TrustListState, event: TrustListEvent): TrustListState => {
  switch (event.type) {
    case 'TrustListVersionAccepted':
      return { status: 'recorded', version: event.data };
    case 'TrustListVersionConfirmed':
      return state.status === 'recorded' && state.version.digest === event.data.digest
        ? { status: 'recorded', version: { ...state.version, fetchedAt: event.data.fetchedAt } }
        : state;
  }
};

export const decide = (command: TrustListCommand, state: TrustListState): Either<TrustListError, readonly TrustListEvent[]> => {
  const { version } = command;
  if (state.status === 'none') return right([{ type: 'TrustListVersionAccepted', data: version }]);
  const recorded = state.version;
  if (version.digest === recorded.digest) {
    return right([{ type: 'TrustListVersionConfirmed', data: { digest: version.digest, fetchedAt: version.fetchedAt } }]);
  }
  if (version.sequenceNumber < recorded.sequenceNumber) {
    return left({ _tag: 'SequenceRewound', recorded: recorded.sequenceNumber, fetched: version.sequenceNumber });
  }
  return right([{ type: 'TrustListVersionAccepted', data: version }]);
};

export const trustList: Decider<TrustListCommand, TrustListState, TrustListEvent, TrustListError> = {
  category,
  codec: TrustListEvent,
  initialState,
  evolve,
  decide,
};
