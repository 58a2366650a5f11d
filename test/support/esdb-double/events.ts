// What the log holds: events as a client proposes them, as the log stores them, and per stream.

export interface ProposedEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly metadata: Uint8Array;
}

export interface StoredEvent extends ProposedEvent {
  readonly streamId: string;
  readonly revision: bigint;
  /** Log position; commit and prepare are equal for every event in a modern log. */
  readonly position: bigint;
  /** .NET ticks since the Unix epoch, as the server reports `created`. */
  readonly created: bigint;
}

export interface StreamState {
  readonly events: StoredEvent[];
  readonly byId: Map<string, StoredEvent>;
  tombstone?: StoredEvent;
}
