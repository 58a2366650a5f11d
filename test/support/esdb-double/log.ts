// The log: EventStoreDB's write and read rules over in-memory state, and its positions.
import { randomUUID } from 'node:crypto';
import type { ProposedEvent, StoredEvent, StreamState } from './events.js';
import { checkCommit, currentRevisionOf, DELETED_STREAM } from './expectedRevision.js';
import { utf8 } from './wire.js';

const TOMBSTONE_TYPE = '$streamDeleted';
const JSON_CONTENT = 'application/json';
const BINARY_CONTENT = 'application/octet-stream';
const TICKS_PER_MS = 10_000n;

/** A pair compared as EventStoreDB compares TFPos: commit first, then prepare. */
export interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

const positionOf = (e: StoredEvent): LogPosition => ({ commit: e.position, prepare: e.position });

const compare = (a: LogPosition, b: LogPosition): number =>
  a.commit === b.commit ? (a.prepare === b.prepare ? 0 : a.prepare < b.prepare ? -1 : 1) : a.commit < b.commit ? -1 : 1;

export type WriteOutcome =
  | { readonly kind: 'written'; readonly current: bigint; readonly position: bigint | undefined }
  | { readonly kind: 'wrongExpectedVersion'; readonly current: bigint }
  | { readonly kind: 'deleted' };

export class Log {
  private readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  /** A real log opens with an epoch record at 0, so no event ever sits at 0/0. */
  private nextPosition = 128n;
  private appended: { promise: Promise<void>; resolve: () => void } = Log.signal();

  constructor() {
    // A real node's log starts with its own records; clients must cope with `$` events in $all.
    const epoch: ProposedEvent = {
      id: randomUUID(),
      type: '$epoch-information',
      contentType: JSON_CONTENT,
      data: utf8('{"epochNumber":0}'),
      metadata: new Uint8Array(),
    };
    this.write('$epoch-information', [epoch]);
  }

  private static signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve = (): void => undefined;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  /** Resolves at the next write; subscribers wait on it instead of buffering live events. */
  nextWrite(): Promise<void> {
    return this.appended.promise;
  }

  stream(streamId: string): StreamState | undefined {
    return this.streams.get(streamId);
  }

  get allEvents(): readonly StoredEvent[] {
    return this.all;
  }

  /** -1 for no stream, DELETED_STREAM once tombstoned, else the last revision. */
  currentRevision(streamId: string): bigint {
    return currentRevisionOf(this.streams.get(streamId));
  }

  append(streamId: string, expected: bigint, events: readonly ProposedEvent[]): WriteOutcome {
    const decision = checkCommit(this.streams.get(streamId), expected, events.map((e) => e.id));
    switch (decision.kind) {
      case 'deleted':
      case 'wrongExpectedVersion':
        return decision;
      case 'idempotent':
        return { kind: 'written', current: decision.last.revision, position: decision.last.position };
      case 'ok': {
        if (events.length === 0) return { kind: 'written', current: this.currentRevision(streamId), position: undefined };
        const last = this.write(streamId, events);
        return { kind: 'written', current: last.revision, position: last.position };
      }
    }
  }

  tombstone(streamId: string, expected: bigint): WriteOutcome {
    // The server checks a delete like a write of one new event, so a delete is never idempotent.
    const decision = checkCommit(this.streams.get(streamId), expected, [randomUUID()]);
    if (decision.kind === 'deleted' || decision.kind === 'wrongExpectedVersion') return decision;
    const record = this.record(streamId, DELETED_STREAM, {
      id: randomUUID(),
      type: TOMBSTONE_TYPE,
      contentType: BINARY_CONTENT,
      data: new Uint8Array(),
      metadata: new Uint8Array(),
    });
    const stream = this.streams.get(streamId) ?? this.newStream(streamId);
    stream.tombstone = record;
    this.all.push(record);
    this.notify();
    return { kind: 'written', current: DELETED_STREAM, position: record.position };
  }

  /** Index in $all of the first event at or after `from` (forwards reads are inclusive). */
  firstIndexAtOrAfter(from: LogPosition): number {
    return this.search((e) => compare(positionOf(e), from) >= 0);
  }

  /** Index in $all of the first event strictly after `after` (subscriptions resume exclusively). */
  firstIndexAfter(after: LogPosition): number {
    return this.search((e) => compare(positionOf(e), after) > 0);
  }

  private search(isAtOrBeyond: (e: StoredEvent) => boolean): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isAtOrBeyond(this.all[mid]!)) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  private write(streamId: string, events: readonly ProposedEvent[]): StoredEvent {
    const stream = this.streams.get(streamId) ?? this.newStream(streamId);
    let last: StoredEvent | undefined;
    for (const proposed of events) {
      last = this.record(streamId, BigInt(stream.events.length), proposed);
      stream.events.push(last);
      stream.byId.set(last.id, last);
      this.all.push(last);
    }
    this.notify();
    return last!;
  }

  private record(streamId: string, revision: bigint, proposed: ProposedEvent): StoredEvent {
    const position = this.nextPosition;
    // Roughly a prepare record's size, so positions are offsets, not a sequence.
    const names = Buffer.byteLength(streamId) + Buffer.byteLength(proposed.type);
    this.nextPosition += 80n + BigInt(names + proposed.data.length + proposed.metadata.length);
    return { ...proposed, streamId, revision, position, created: BigInt(Date.now()) * TICKS_PER_MS };
  }

  private newStream(streamId: string): StreamState {
    const stream: StreamState = { events: [], byId: new Map() };
    this.streams.set(streamId, stream);
    return stream;
  }

  private notify(): void {
    const previous = this.appended;
    this.appended = Log.signal();
    previous.resolve();
  }
}
