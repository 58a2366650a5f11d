// The tail of `$all`, read once for every live subscription of the embedded store. Live
// subscriptions (the projection runner, the callback recorder) all follow the head: without this,
// each would run the same query after every commit and parse the same rows again. The tail keeps
// the latest events read, decoded, in position order; a subscription whose position lies inside
// it is served from memory, and the first to need what lies beyond it reads that from the file
// for all. A subscription further behind (catching up) reads the file itself, as before.
//
// What the tail holds is exactly what the file held: every event with a position in
// (from, to], none skipped. A tombstone's erasure reaches it too (`erase`), so an erased data key
// is gone from memory when it is gone from the file.
import type { RecordedEvent } from './port.js';

/** Events kept: a few seconds of appends at full speed, a few MB at most. */
const KEPT = 4096;
/** Events read from the file at a time to extend the tail. */
const BATCH = 500;

export interface TailRead {
  /** Events with positions in (after, upTo], in order, at most `limit`. */
  (after: number, upTo: number, limit: number): readonly RecordedEvent[];
}

const positionOf = (event: RecordedEvent): number => Number(event.position.commit);

export class AllTail {
  /** Every event with a position in (from, to] is in `events`, in order. */
  private from = 0;
  private to = 0;
  private events: RecordedEvent[] = [];

  constructor(private readonly readFile: TailRead) {}

  /** Events with positions in (after, upTo], in order, at most `limit`: from memory where it can. */
  read(after: number, upTo: number, limit: number): readonly RecordedEvent[] {
    if (after < this.from || after > this.to) {
      // Behind the tail (or the tail is empty and behind): read the file. Joining the head from here
      // starts a new tail, as a subscription that is caught up is the common case.
      const read = this.readFile(after, upTo, limit);
      if (after >= this.to) this.restart(after, upTo, limit, read);
      return read;
    }
    // Fewer than `limit` in memory and more in the file: read on (the batch read per call stays
    // well under KEPT, so nothing after `after` is trimmed meanwhile).
    while (upTo > this.to && this.events.length - this.firstAfter(after) < limit) this.extend(upTo);
    const start = this.firstAfter(after);
    return this.events.slice(start, start + limit).filter((event) => positionOf(event) <= upTo);
  }

  /** Drops a tombstoned stream's events, as the file does. */
  erase(streamId: string): void {
    this.events = this.events.filter((event) => event.streamId !== streamId);
  }

  private restart(after: number, upTo: number, limit: number, read: readonly RecordedEvent[]): void {
    this.events = [...read];
    this.from = after;
    this.to = read.length < limit ? upTo : positionOf(read[read.length - 1]!);
    this.trim();
  }

  private extend(upTo: number): void {
    const read = this.readFile(this.to, upTo, BATCH);
    this.events.push(...read);
    this.to = read.length < BATCH ? upTo : positionOf(read[read.length - 1]!);
    this.trim();
  }

  private trim(): void {
    const excess = this.events.length - KEPT;
    if (excess <= 0) return;
    this.from = positionOf(this.events[excess - 1]!);
    this.events = this.events.slice(excess);
  }

  /** Index of the first event after `position` (binary search: positions ascend). */
  private firstAfter(position: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (positionOf(this.events[mid]!) <= position) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
