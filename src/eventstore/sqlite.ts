// The embedded event store: one SQLite file in WAL mode, EventStoreDB's semantics.
//
// Every append is a single INSERT ... SELECT statement: SQLite runs a statement atomically under
// its write lock, so the expected-revision check and the write cannot be separated by another
// writer, in this process or another one (the ops tool). The global position is the rowid of an
// AUTOINCREMENT table, which is never reused and grows in commit order. The table and the append
// statements are in sqliteSchema.ts. Appends and tombstones commit through group commit
// (groupCommit.ts) and are acknowledged once the WAL is flushed (walFlush.ts).
import { EventEmitter } from 'node:events';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { Sqlite, type SqlValue } from '../sqlite/connection.js';
import { AllTail } from './allTail.js';
import { GroupCommit } from './groupCommit.js';
import { appendStatement, expectation, knownRevision, SCHEMA, TOMBSTONE_REVISION, TOMBSTONE_TYPE } from './sqliteSchema.js';
import { WalFlush } from './walFlush.js';
import {
  isSystemEventType,
  matchesFilter,
  type AppendError,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type Json,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ReadStreamResult,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
  type SubscriptionMessage,
} from './port.js';

const SUBSCRIPTION_BATCH = 500;
/** SQLite's auto-checkpoint threshold (1000 frames of a 4096-byte page and its 24-byte header), in bytes. */
const WAL_SIZE_LIMIT = 1000 * (4096 + 24) + 32;

interface EventRow {
  [column: string]: SqlValue;
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string | null;
  created: number;
}

const toPosition = (position: number): Position => ({ commit: BigInt(position), prepare: BigInt(position) });

const toRecorded = (row: EventRow): RecordedEvent => ({
  streamId: row.stream_id,
  id: row.event_id,
  type: row.type,
  revision: row.revision,
  position: toPosition(row.position),
  data: JSON.parse(row.data) as Json,
  metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Json),
  created: new Date(row.created),
});

export interface SqliteEventStoreOptions {
  readonly file: string;
  /**
   * `FULL` (the default): an append is acknowledged, and an event delivered to a subscription,
   * only once it is on stable storage, so it survives a power cut. The connection commits at
   * synchronous=NORMAL and the WAL is flushed off the event loop (walFlush.ts). `NORMAL`: no
   * flush; what is acknowledged survives a crash of the process, not of the machine.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** With `FULL`, the WAL flush to use instead of a new one (tests hold it to see what waits). */
  readonly walFlush?: WalFlush;
  /** How often a live subscription looks for events appended by another process. */
  readonly pollIntervalMs?: number;
}

export const openSqliteEventStore = async (options: SqliteEventStoreOptions): Promise<EventStore> => {
  const db = Sqlite.open(options.file, { synchronous: 'NORMAL' });
  // Deleted rows are overwritten with zeros, so erased events leave nothing readable in the file.
  db.exec('PRAGMA secure_delete = ON');
  // The WAL can still hold their pages as they were before, until a checkpoint lets it be written
  // over from the start. Truncating it then to one auto-checkpoint cycle's size means no stale
  // tail outlives the cycle after the next checkpoint (and closing the store deletes the WAL).
  db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
  db.exec(SCHEMA);
  const flush = (options.synchronous ?? 'FULL') === 'FULL' ? (options.walFlush ?? new WalFlush(options.file)) : undefined;
  const store = new SqliteEventStore(db, flush, options.pollIntervalMs ?? 200);
  // What a previous process committed may not have reached the disk before it stopped.
  await store.durableHead();
  return store;
};

class SqliteEventStore implements EventStore {
  private readonly appended = new EventEmitter();
  private appendCount = 0;
  private closed = false;
  private readonly subscriptions = new Set<Subscription>();
  private readonly writes: GroupCommit;
  /** The latest events read for live subscriptions, shared by all of them. */
  private readonly tail = new AllTail((after, upTo, limit) =>
    this.db
      .all<EventRow>('SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?', [after, upTo, limit])
      .map(toRecorded),
  );
  /** The highest position known to be on stable storage (everything, without a flush). */
  private durablePosition = 0;

  constructor(
    private readonly db: Sqlite,
    private readonly wal: WalFlush | undefined,
    private readonly pollIntervalMs: number,
  ) {
    this.appended.setMaxListeners(0);
    this.writes = new GroupCommit(db, async () => void (await this.durableHead()));
  }

  /**
   * The head of `$all` once it is on stable storage, flushing if need be. Subscriptions deliver
   * nothing beyond it, so no callback or read model reflects an event a power cut could undo,
   * whichever process appended it: one flush of the shared WAL file covers them all. Local
   * appends advance it before they are acknowledged; a subscription's poll advances it for
   * appends by other processes.
   */
  async durableHead(): Promise<number> {
    const head = this.db.get<{ head: number | null }>('SELECT MAX(position) AS head FROM events')?.head ?? 0;
    if (head > this.durablePosition) {
      await this.wal?.flush();
      this.durablePosition = Math.max(this.durablePosition, head);
    }
    return this.durablePosition;
  }

  async append(
    streamId: string,
    events: readonly EventData[],
    expectedRevision: ExpectedRevision,
  ): Promise<Either<AppendError, AppendResult>> {
    if (events.length === 0) return this.appendNothing(streamId, expectedRevision);
    const rowParams = events.flatMap((e, i): SqlValue[] => [
      i + 1,
      e.id,
      e.type,
      JSON.stringify(e.data),
      e.metadata === undefined ? null : JSON.stringify(e.metadata),
    ]);
    const sql = appendStatement(events.length, expectedRevision);
    const params = [streamId, Date.now(), events[0]!.id, typeof expectedRevision === 'number' ? expectedRevision : null, ...rowParams];
    const before = knownRevision(expectedRevision);
    if (before !== undefined) {
      // The revisions are known in advance: the last row inserted (in revision order) is the last event.
      const result = await this.writes.write(() => this.db.run(sql, params));
      if (result.changes !== events.length) return this.explainRefusal(streamId, events, expectedRevision);
      this.notifyAppended();
      return right({ nextExpectedRevision: before + events.length, position: toPosition(result.lastId) });
    }
    const inserted = await this.writes.write(() => this.db.all<{ position: number; revision: number }>(sql, params));
    if (inserted.length !== events.length) return this.explainRefusal(streamId, events, expectedRevision);
    this.notifyAppended();
    const last = inserted.reduce((a, b) => (a.position > b.position ? a : b));
    return right({ nextExpectedRevision: last.revision, position: toPosition(last.position) });
  }

  /** The append wrote nothing: a tombstone, an idempotent retry, or a wrong expectation. */
  private async explainRefusal(
    streamId: string,
    events: readonly EventData[],
    expected: ExpectedRevision,
  ): Promise<Either<AppendError, AppendResult>> {
    if (await this.isTombstoned(streamId)) return left({ _tag: 'StreamDeleted', streamId });
    const current = await this.currentRevision(streamId);
    const retry = await this.findRetry(streamId, events, expected);
    if (retry) return right(retry);
    return left({ _tag: 'WrongExpectedRevision', streamId, expected, actual: current < 0 ? 'no_stream' : current });
  }

  /** The same event ids already stored, in order, where this append would have put them. */
  private async findRetry(
    streamId: string,
    events: readonly EventData[],
    expected: ExpectedRevision,
  ): Promise<AppendResult | undefined> {
    let from: number | undefined;
    if (typeof expected === 'number') from = expected + 1;
    else if (expected === 'no_stream') from = 0;
    else {
      const first = this.db.get<{ revision: number }>(
        'SELECT revision FROM events WHERE stream_id = ? AND event_id = ?',
        [streamId, events[0]!.id],
      );
      from = first?.revision;
    }
    if (from === undefined) return undefined;
    const stored = this.db.all<EventRow>(
      'SELECT * FROM events WHERE stream_id = ? AND revision >= ? AND revision < ? ORDER BY revision',
      [streamId, from, from + events.length],
    );
    const same = stored.length === events.length && stored.every((row, i) => row.event_id === events[i]!.id);
    if (!same) return undefined;
    const last = stored[stored.length - 1]!;
    return { nextExpectedRevision: last.revision, position: toPosition(last.position) };
  }

  private async appendNothing(streamId: string, expected: ExpectedRevision): Promise<Either<AppendError, AppendResult>> {
    if (await this.isTombstoned(streamId)) return left({ _tag: 'StreamDeleted', streamId });
    const current = await this.currentRevision(streamId);
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current < 0) ||
      (expected === 'stream_exists' && current >= 0) ||
      expected === current;
    if (!ok) return left({ _tag: 'WrongExpectedRevision', streamId, expected, actual: current < 0 ? 'no_stream' : current });
    const head = this.db.get<{ position: number | null }>('SELECT MAX(position) AS position FROM events');
    return right({ nextExpectedRevision: current, position: toPosition(head?.position ?? 0) });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<ReadStreamResult> {
    const backwards = options.direction === 'backwards';
    const from = Math.min(options.fromRevision ?? (backwards ? TOMBSTONE_REVISION - 1 : 0), TOMBSTONE_REVISION);
    const params = [streamId, from, options.maxCount ?? -1];
    const order = backwards ? 'DESC' : 'ASC';
    const range = `stream_id = ?1 AND revision ${backwards ? '<=' : '>='} ?2 AND revision < ${TOMBSTONE_REVISION}`;
    // Events found: the stream exists and has no tombstone (a tombstone erases its events in the
    // same statement). One statement is one snapshot.
    const rows = this.db.all<EventRow>(`SELECT * FROM events WHERE ${range} ORDER BY revision ${order} LIMIT ?3`, params);
    if (rows.length > 0) return { _tag: 'Found', events: rows.map(toRecorded) };
    // None in range: the stream's head says why, read in one snapshot with the range again, as a
    // writer in another process may have appended since.
    const headed = this.db.all<EventRow & { head: number | null }>(
      `SELECT h.head, e.* FROM (SELECT MAX(revision) AS head FROM events WHERE stream_id = ?1) AS h
       LEFT JOIN (SELECT * FROM events WHERE ${range} ORDER BY revision ${order} LIMIT ?3) AS e ON 1
       ORDER BY e.revision ${order}`,
      params,
    );
    const head = headed[0]?.head ?? null;
    if (head === null) return { _tag: 'StreamNotFound', streamId };
    if (head === TOMBSTONE_REVISION) return { _tag: 'StreamDeleted', streamId };
    return { _tag: 'Found', events: headed.filter((r) => r.position !== null).map(toRecorded) };
  }

  async readAll(options: ReadAllOptions = {}): Promise<readonly RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromPosition ? Number(options.fromPosition.commit) : backwards ? Number.MAX_SAFE_INTEGER : 0;
    const rows = this.db.all<EventRow>(
      `SELECT * FROM events WHERE position ${backwards ? '<=' : '>='} ? AND type NOT LIKE '$%'
       ORDER BY position ${backwards ? 'DESC' : 'ASC'} LIMIT ?`,
      [from, options.maxCount ?? -1],
    );
    return rows.map(toRecorded);
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    let stopped = false;
    let wake: (() => void) | undefined;
    const stop = async (): Promise<void> => {
      stopped = true;
      wake?.();
      this.subscriptions.delete(subscription);
    };
    const waitForAppend = (seenCount: number): Promise<void> =>
      new Promise((resolve) => {
        if (stopped || this.appendCount !== seenCount) return resolve();
        // On a quiet poll, what another process appended is flushed before it can be read.
        const timer = setTimeout(() => void this.durableHead().then(done, done), this.pollIntervalMs);
        function done(): void {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
        this.appended.once('appended', done);
      });
    const store = this;
    async function* messages(): AsyncGenerator<SubscriptionMessage> {
      let after = Number(options.after.commit);
      let caughtUp = false;
      while (!stopped && !store.closed) {
        const seenCount = store.appendCount;
        const events = store.tail.read(after, store.durablePosition, SUBSCRIPTION_BATCH);
        for (const event of events) {
          if (stopped) return;
          after = Number(event.position.commit);
          if (isSystemEventType(event.type) || !matchesFilter(options.filter, event.streamId, event.type)) continue;
          yield { kind: 'event', event };
        }
        if (events.length < SUBSCRIPTION_BATCH) {
          if (!caughtUp) {
            caughtUp = true;
            yield { kind: 'caughtUp' };
          }
          await waitForAppend(seenCount);
        }
      }
    }
    const subscription: Subscription = { [Symbol.asyncIterator]: messages, stop };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async tombstone(streamId: string, expectedRevision: ExpectedRevision): Promise<Either<AppendError, Position>> {
    const result = await this.writes.write(() => this.db.run(
      `WITH cur(r) AS (SELECT COALESCE(MAX(revision), -1) FROM events WHERE stream_id = ?1)
       INSERT INTO events (stream_id, revision, event_id, type, data, metadata, created)
       SELECT ?1, ${TOMBSTONE_REVISION}, lower(hex(randomblob(16))), '${TOMBSTONE_TYPE}', '{}', NULL, ?2
       FROM cur WHERE ${expectation(expectedRevision)}
         AND NOT EXISTS (SELECT 1 FROM events WHERE stream_id = ?1 AND revision = ${TOMBSTONE_REVISION})`,
      // ?4 is the exact revision; a parameter SQLite does not see cannot be bound.
      typeof expectedRevision === 'number' ? [streamId, Date.now(), null, expectedRevision] : [streamId, Date.now()],
    ));
    if (result.changes === 1) {
      this.tail.erase(streamId);
      this.notifyAppended();
      return right(toPosition(result.lastId));
    }
    if (await this.isTombstoned(streamId)) return left({ _tag: 'StreamDeleted', streamId });
    const current = await this.currentRevision(streamId);
    return left({
      _tag: 'WrongExpectedRevision',
      streamId,
      expected: expectedRevision,
      actual: current < 0 ? 'no_stream' : current,
    });
  }

  /** Already on stable storage: the other process acknowledged it after its own flush of the shared WAL. */
  readonly appendedElsewhere = (position: Position): void => {
    const head = Number(position.commit);
    if (head <= this.durablePosition) return;
    this.durablePosition = head;
    this.notifyAppended();
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.wal?.close();
    this.db.close();
  }

  private notifyAppended(): void {
    this.appendCount++;
    this.appended.emit('appended');
  }

  private async isTombstoned(streamId: string): Promise<boolean> {
    const row = this.db.get('SELECT 1 AS t FROM events WHERE stream_id = ? AND revision = ?', [
      streamId,
      TOMBSTONE_REVISION,
    ]);
    return row !== undefined;
  }

  /** The last revision, or -1 when the stream has no events. */
  private async currentRevision(streamId: string): Promise<number> {
    const row = this.db.get<{ r: number }>(
      'SELECT COALESCE(MAX(revision), -1) AS r FROM events WHERE stream_id = ? AND revision < ?',
      [streamId, TOMBSTONE_REVISION],
    );
    return row?.r ?? -1;
  }
}
